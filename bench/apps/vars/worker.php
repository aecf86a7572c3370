<?php
// vars/index.php as a worker: the same page, rendered by the handler for each request.
$handler = static function (): void {
    $keys = ['REQUEST_METHOD', 'REQUEST_URI', 'SERVER_PROTOCOL', 'REMOTE_ADDR', 'HTTP_HOST'];
    $items = '';
    foreach ($keys as $key) {
        $items .= '<li><b>' . $key . '</b>: ' . htmlspecialchars((string)($_SERVER[$key] ?? '')) . "</li>\n";
    }
    $name = htmlspecialchars((string)($_GET['name'] ?? 'nobody'));
    echo <<<HTML
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Request</title></head>
<body>
<h1>Hello, $name!</h1>
<p>This page shows a few of the entries the server passed to PHP for this request, the way a
small diagnostic or status page of an application would. Every value is escaped before it is
written out, and the page is rendered fresh for each request.</p>
<ul>
$items</ul>
<p>The benchmark compares what it costs to build this response under different servers: the
work PHP does is the same in each, so any difference is the server's own overhead for
receiving the request, handing it to PHP and sending the answer back to the client. The
throughput and latency figures are medians of several runs, each measured after a warm-up
with the same client.</p>
</body></html>

HTML;
};
while (frankenphp_handle_request($handler)) {
}
