<?php
declare(strict_types=1);

namespace Shop\View;

trait Escaping
{
    public function e(mixed $value): string
    {
        return htmlspecialchars((string) $value, ENT_QUOTES | ENT_SUBSTITUTE, 'UTF-8');
    }

    public function url(string $path, array $query = []): string
    {
        return $path . ($query === [] ? '' : '?' . http_build_query($query));
    }
}
