<?php
// Classic mode: the whole bootstrap runs for every request, then the page is rendered.
$container = require __DIR__ . '/bootstrap.php';
echo $container->get(Bench\Page::class)->render($_GET);
