<?php
// Worker mode: the bootstrap runs once per thread; each request only renders the page.
$container = require __DIR__ . '/bootstrap.php';
$page = $container->get(Bench\Page::class);
$handler = static function () use ($page): void {
    echo $page->render($_GET);
};
while (frankenphp_handle_request($handler)) {
}
