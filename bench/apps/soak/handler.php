<?php
// One request of the soak mix (bench/soak.sh): each answer is checked by length and content
// on the client side, so a wrong or mixed-up response counts as an error.
function soak_handle(): void
{
    $path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
    if ($path === '/vars') {
        foreach (['REQUEST_METHOD', 'REQUEST_URI', 'HTTP_HOST', 'REMOTE_ADDR'] as $key) {
            echo $key, '=', $_SERVER[$key] ?? '', "\n";
        }
        echo 'name=', $_GET['name'] ?? '', "\n";
        return;
    }
    if ($path === '/upload') {
        $body = file_get_contents('php://input');
        echo 'upload ', strlen($body), ' ', hash('crc32b', $body), "\n";
        return;
    }
    echo "Hello, World!\n";
}
