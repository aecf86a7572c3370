<?php
// The app's own classes (namespace App\, one class per file under src/) and the libraries
// Debian installs under /usr/share/php, each with the autoloader its package ships.
require_once '/usr/share/php/Symfony/Component/HttpKernel/autoload.php';
require_once '/usr/share/php/Symfony/Component/Routing/autoload.php';
require_once '/usr/share/php/Symfony/Component/Security/Csrf/autoload.php';
require_once '/usr/share/php/Twig/autoload.php';

spl_autoload_register(static function (string $class): void {
    if (str_starts_with($class, 'App\\')) {
        require __DIR__ . '/' . str_replace('\\', '/', substr($class, 4)) . '.php';
    }
});
