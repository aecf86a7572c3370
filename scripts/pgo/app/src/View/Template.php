<?php
declare(strict_types=1);

namespace Shop\View;

final class Template
{
    use Escaping;

    public function __construct(private readonly string $directory, private readonly array $globals)
    {
    }

    public function render(string $name, array $variables): string
    {
        $content = $this->partial($name, $variables);
        return $this->partial('layout', $this->globals + $variables + ['content' => $content]);
    }

    private function partial(string $name, array $variables): string
    {
        extract($variables, EXTR_SKIP);
        ob_start();
        try {
            include $this->directory . '/' . $name . '.php';
            return ob_get_contents();
        } finally {
            ob_end_clean();
        }
    }
}
