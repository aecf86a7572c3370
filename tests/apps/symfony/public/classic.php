<?php
// The same application in classic mode (php-fpm, or Spindle without a worker): everything is
// built for each request and dropped after it, as Symfony's public/index.php does without a
// resident runtime. bench/real_apps.py measures it against the worker of index.php.

use App\AppKernel;
use Symfony\Component\HttpFoundation\Request;

require dirname(__DIR__) . '/src/autoload.php';

$kernel = new AppKernel(getenv('APP_SESSION_DIR') ?: sys_get_temp_dir());
$request = Request::createFromGlobals();
$response = $kernel->handle($request);
$response->send();
$kernel->terminate($request, $response);
