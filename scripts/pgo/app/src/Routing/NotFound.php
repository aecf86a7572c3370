<?php
declare(strict_types=1);

namespace Shop\Routing;

final class NotFound extends \RuntimeException
{
}
