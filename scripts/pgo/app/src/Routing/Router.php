<?php
declare(strict_types=1);

namespace Shop\Routing;

final class Router
{
    /** @var list<array{string, string, array}> */
    private array $routes = [];

    public function get(string $pattern, array $handler): void
    {
        $this->add('GET', $pattern, $handler);
    }

    public function add(string $method, string $pattern, array $handler): void
    {
        $regex = preg_replace_callback(
            '/\{(\w+)\}/',
            static fn (array $m): string => '(?P<' . $m[1] . '>[^/]+)',
            $pattern,
        );
        $this->routes[] = [$method, '#^' . $regex . '$#', $handler];
    }

    /** @return array{array, array<string, string>} */
    public function match(string $method, string $path): array
    {
        foreach ($this->routes as [$routeMethod, $regex, $handler]) {
            if ($routeMethod !== $method || !preg_match($regex, $path, $matches)) {
                continue;
            }
            return [$handler, array_filter($matches, 'is_string', ARRAY_FILTER_USE_KEY)];
        }
        throw new NotFound(sprintf('No route for %s %s', $method, $path));
    }
}
