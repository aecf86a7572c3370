<?php
// The example app Spindle serves in its quick start: a front controller with a few routes.
declare(strict_types=1);

session_start();
$_SESSION['visits'] = ($_SESSION['visits'] ?? 0) + 1;

$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) ?: '/';

if ($path === '/api/time') {
    header('Content-Type: application/json');
    echo json_encode(['time' => date(DATE_ATOM), 'sapi' => PHP_SAPI, 'php' => PHP_VERSION]);
    return;
}

if ($path !== '/') {
    http_response_code(404);
}

$name = htmlspecialchars((string)($_GET['name'] ?? 'world'), ENT_QUOTES);
?>
<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Spindle example</title>
  <link rel="stylesheet" href="/assets/style.css">
</head>
<body>
  <h1>Hello, <?= $name ?>!</h1>
  <?php if ($path !== '/'): ?>
    <p>No page at <code><?= htmlspecialchars($path) ?></code>.</p>
  <?php endif; ?>
  <p>Served by <?= htmlspecialchars($_SERVER['SERVER_SOFTWARE']) ?> with PHP <?= PHP_VERSION ?>
     (SAPI <code><?= PHP_SAPI ?></code>, OPcache
     <?= function_exists('opcache_get_status') && (opcache_get_status(false)['opcache_enabled'] ?? false) ? 'on' : 'off' ?>).</p>
  <p>You have visited <?= (int)$_SESSION['visits'] ?> time(s) in this session.</p>
  <form method="get"><input name="name" placeholder="your name"> <button>Greet</button></form>
  <p><a href="/api/time">/api/time</a> (JSON)</p>
</body>
</html>
