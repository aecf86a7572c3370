<?php
// Laravel's bootstrap/app.php: the application and its three kernel bindings. Everything the
// app writes (sessions, compiled views, uploads, the framework's caches) goes under
// APP_STORAGE, which the test gives each run; the source tree stays read-only.

$app = new Illuminate\Foundation\Application(dirname(__DIR__));

$storage = $_SERVER['APP_STORAGE'] ?? getenv('APP_STORAGE');
if (is_string($storage) && $storage !== '') {
    $app->useStoragePath($storage);
}

$app->singleton(Illuminate\Contracts\Http\Kernel::class, App\Http\Kernel::class);
$app->singleton(Illuminate\Contracts\Console\Kernel::class, App\Console\Kernel::class);
$app->singleton(Illuminate\Contracts\Debug\ExceptionHandler::class, App\Exceptions\Handler::class);

return $app;
