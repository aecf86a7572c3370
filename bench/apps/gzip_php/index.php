<?php
// A 50 KB HTML table, built per request; bench/run.sh writes the same bytes as a static file
// (gzip_static) and checks the decompressed response against them.
echo "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Orders</title></head>\n<body>\n<table>\n";
for ($i = 1; $i <= 915; $i++) {
    echo '<tr><td>row ', $i, '</td><td>item-', $i * 37 % 1000, '</td><td>', $i * 7919 % 10007, "</td></tr>\n";
}
echo "</table>\n</body></html>\n";
