<?php
declare(strict_types=1);

namespace Shop;

final class Container
{
    /** @var array<string, \Closure> */
    private array $factories = [];
    /** @var array<string, mixed> */
    private array $services = [];

    public function set(string $id, \Closure $factory): void
    {
        $this->factories[$id] = $factory;
        unset($this->services[$id]);
    }

    public function has(string $id): bool
    {
        return isset($this->factories[$id]);
    }

    public function get(string $id): mixed
    {
        if (array_key_exists($id, $this->services)) {
            return $this->services[$id];
        }
        if (!$this->has($id)) {
            throw new \InvalidArgumentException(sprintf('No service "%s"', $id));
        }
        return $this->services[$id] = ($this->factories[$id])($this);
    }
}
