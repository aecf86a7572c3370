<?php
// post/index.php as a worker.
$handler = static function (): void {
    $body = file_get_contents('php://input');
    header('Content-Type: text/plain');
    echo strlen($body), ' ', hash('crc32b', $body), "\n";
};
while (frankenphp_handle_request($handler)) {
}
