<?php
declare(strict_types=1);

namespace Shop\Http;

final class Request
{
    public function __construct(
        public readonly string $method,
        public readonly string $path,
        public readonly array $query,
        public readonly array $headers,
    ) {
    }

    public static function fromGlobals(): self
    {
        $headers = [];
        foreach ($_SERVER as $key => $value) {
            if (is_string($value) && str_starts_with($key, 'HTTP_')) {
                $name = str_replace('_', '-', ucwords(strtolower(substr($key, 5)), '_'));
                $headers[$name] = $value;
            }
        }
        $query = $_GET;
        $path = '/' . trim((string) ($query['route'] ?? '/'), '/');
        unset($query['route']);
        return new self($_SERVER['REQUEST_METHOD'] ?? 'GET', $path, $query, $headers);
    }

    public function int(string $name, int $default): int
    {
        $value = filter_var($this->query[$name] ?? null, FILTER_VALIDATE_INT);
        return $value === false ? $default : $value;
    }

    public function string(string $name, string $default = ''): string
    {
        return isset($this->query[$name]) ? trim((string) $this->query[$name]) : $default;
    }
}
