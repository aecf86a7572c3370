<?php
// The same 50 KB page as index.php, resident: booted once per thread.
$handler = static function (): void {
    echo "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Orders</title></head>\n<body>\n<table>\n";
    for ($i = 1; $i <= 915; $i++) {
        echo '<tr><td>row ', $i, '</td><td>item-', $i * 37 % 1000, '</td><td>', $i * 7919 % 10007, "</td></tr>\n";
    }
    echo "</table>\n</body></html>\n";
};
while (frankenphp_handle_request($handler)) {
}
