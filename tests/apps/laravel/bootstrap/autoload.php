<?php
// Laravel 8 as Debian packages it (php-laravel-framework, under /usr/share/php: each package
// ships its own autoloader, found through include_path), and the app's own classes
// (namespace App\, one class per file under app/). A Composer project has vendor/autoload.php
// here instead.
require_once 'Illuminate/autoload.php';

spl_autoload_register(static function (string $class): void {
    if (str_starts_with($class, 'App\\')) {
        require dirname(__DIR__) . '/app/' . str_replace('\\', '/', substr($class, 4)) . '.php';
    }
});
