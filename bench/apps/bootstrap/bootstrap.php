<?php
// A framework's boot in miniature: an autoloader (one file per class), configuration, and a
// container that builds 150 services. Classic mode runs this per request, worker mode once.
// The service classes and src/services.php are written by generate.sh.
declare(strict_types=1);

spl_autoload_register(static function (string $class): void {
    if (str_starts_with($class, 'Bench\\')) {
        require __DIR__ . '/src/' . strtr(substr($class, 6), '\\', '/') . '.php';
    }
});

$config = new Bench\Config([
    'app.name' => 'Bench',
    'app.env' => 'prod',
    'app.debug' => false,
    'app.locale' => 'en',
    'app.timezone' => 'UTC',
    'app.url' => 'http://127.0.0.1',
    'cache.driver' => 'array',
    'cache.ttl' => 300,
    'db.dsn' => 'sqlite::memory:',
    'db.pool' => 4,
    'log.level' => 'warning',
    'log.channel' => 'stderr',
    'session.driver' => 'none',
    'services.enabled' => true,
    'services.retries' => 2,
    'services.timeout' => 1.5,
]);

$container = new Bench\Container();
$container->set('config', static fn (): Bench\Config => $config);

/** @var list<class-string<Bench\Services\AbstractService>> $services */
$services = require __DIR__ . '/src/services.php';
// Each service depends on the configuration and on one earlier service (a binary tree), so
// building them resolves dependencies the way a container does.
foreach ($services as $index => $class) {
    $parent = $index > 0 ? $services[intdiv($index - 1, 2)] : null;
    $container->set(
        $class,
        static fn (Bench\Container $c): object => new $class($c->get('config'), $parent === null ? null : $c->get($parent)),
    );
}
foreach ($services as $class) {
    $container->get($class);
}
$container->set(Bench\Page::class, static fn (Bench\Container $c): Bench\Page => new Bench\Page($c, $services));

return $container;
