<?php
declare(strict_types=1);

namespace Bench\Services;

use Bench\Config;
use Bench\Contracts\Describable;

/** What every generated service shares: its configuration and the service it depends on. */
abstract class AbstractService implements Describable
{
    /** @var array<string, mixed> */
    protected array $options = [];

    public function __construct(protected readonly Config $config, protected readonly ?AbstractService $dependency)
    {
    }

    public function isEnabled(): bool
    {
        return (bool)($this->options['enabled'] ?? false);
    }
}
