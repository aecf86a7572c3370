<?php
// The same hello world as index.php, resident: booted once per thread.
$handler = static function (): void {
    echo "Hello, World!";
};
while (frankenphp_handle_request($handler)) {
}
