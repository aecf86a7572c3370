<?php

return [
    'driver' => env('SESSION_DRIVER', 'file'),
    // The Redis connection (config/database.php) of the redis driver.
    'connection' => env('SESSION_CONNECTION', 'default'),
    'lifetime' => 120,
    'expire_on_close' => false,
    'encrypt' => false,
    'files' => storage_path('framework/sessions'),
    'lottery' => [2, 100],
    'cookie' => 'laravel_session',
    'path' => '/',
    'domain' => null,
    'secure' => null,
    'http_only' => true,
    'same_site' => 'lax',
];
