<?php
declare(strict_types=1);

namespace Bench\Contracts;

/** Something the status page can list. */
interface Describable
{
    /** One HTML list item. */
    public function describe(): string;
}
