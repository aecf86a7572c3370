<?php
declare(strict_types=1);

namespace Bench;

/** The ~5 KB HTML page: a heading and one list item per service. */
final class Page
{
    /** @param list<string> $services */
    public function __construct(private readonly Container $container, private readonly array $services)
    {
    }

    /** @param array<string, mixed> $query */
    public function render(array $query): string
    {
        $name = htmlspecialchars((string)($query['name'] ?? 'world'), ENT_QUOTES);
        $config = $this->container->get('config');
        $items = '';
        foreach ($this->services as $id) {
            $service = $this->container->get($id);
            if ($service instanceof Contracts\Describable) {
                $items .= $service->describe() . "\n";
            }
        }
        $title = htmlspecialchars((string)$config->get('app.name'), ENT_QUOTES);
        return <<<HTML
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>$title</title></head>
<body>
<h1>Hello, $name!</h1>
<ul>
$items</ul>
</body></html>

HTML;
    }
}
