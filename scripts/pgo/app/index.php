<?php
// Front controller of the training application: a small shop written the way framework apps
// are (PSR-4 autoloading, a container, a router, controllers, templates), so that the profile
// of a request is that of an application, not of a benchmark loop.
declare(strict_types=1);

spl_autoload_register(static function (string $class): void {
    $prefix = 'Shop\\';
    if (strncmp($class, $prefix, strlen($prefix)) === 0) {
        require __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    }
});

$kernel = new Shop\Kernel(require __DIR__ . '/config.php');
$kernel->handle(Shop\Http\Request::fromGlobals())->send();
