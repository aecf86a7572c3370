<?php
// The worker script: boots the app once per thread, then serves requests the way Symfony
// Runtime's FrankenPHP runner does (symfony/runtime Runner/FrankenPhpWorkerRunner.php):
// handle, send, terminate, collect garbage, until the server asks the worker to stop.

use App\AppKernel;
use Symfony\Component\HttpFoundation\Request;

require dirname(__DIR__) . '/src/autoload.php';

$sessionDir = getenv('APP_SESSION_DIR') ?: sys_get_temp_dir();
$redisPort = getenv('APP_REDIS_PORT');
$databaseDsn = getenv('APP_DATABASE_DSN');
$kernel = new AppKernel($sessionDir, $redisPort === false ? null : (int) $redisPort,
                        $databaseDsn === false ? null : $databaseDsn);
// The process environment as booted; each request's $_SERVER is merged over it.
$server = array_filter($_SERVER, static fn ($key) => !str_starts_with($key, 'HTTP_'),
                       ARRAY_FILTER_USE_KEY);

$request = null;
$response = null;
$handler = static function () use ($kernel, $server, &$request, &$response): void {
    $_SERVER += $server;
    $request = Request::createFromGlobals();
    $response = $kernel->handle($request);
    $response->send();
};

// FRANKENPHP_LOOP_MAX, as the runtime reads it: end the script after that many requests (the
// server starts it again), a cap on what a leaking app can accumulate. 0: never.
$loopMax = (int) ($server['FRANKENPHP_LOOP_MAX'] ?? 0);
for ($loops = 0; ; ) {
    $running = frankenphp_handle_request($handler);
    if ($request !== null && $response !== null) {
        $kernel->terminate($request, $response);
    }
    $request = $response = null;
    gc_collect_cycles();
    if (!$running || ($loopMax > 0 && ++$loops >= $loopMax)) {
        break;
    }
}
