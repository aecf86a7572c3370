<?php
declare(strict_types=1);

namespace Bench;

/** A minimal service container: factories registered by id, each service built once. */
final class Container
{
    /** @var array<string, \Closure(Container): object> */
    private array $factories = [];
    /** @var array<string, object> */
    private array $services = [];

    public function set(string $id, \Closure $factory): void
    {
        $this->factories[$id] = $factory;
        unset($this->services[$id]);
    }

    public function get(string $id): object
    {
        if (isset($this->services[$id])) {
            return $this->services[$id];
        }
        $factory = $this->factories[$id] ?? throw new \LogicException("no service named $id");
        return $this->services[$id] = $factory($this);
    }

    public function has(string $id): bool
    {
        return isset($this->factories[$id]);
    }
}
