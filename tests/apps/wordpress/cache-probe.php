<?php
// What the APCu object cache holds for one site (?salt=WP_CACHE_KEY_SALT): the number of its
// keys and, with ?key=GROUP:KEY, one value as WordPress stored it for blog 1.
$prefix = 'wp:' . ($_GET['salt'] ?? '') . ':';
$keys = 0;
foreach (new APCUIterator('/^' . preg_quote($prefix, '/') . '/', APC_ITER_KEY) as $entry) {
    ++$keys;
}
$value = isset($_GET['key']) ? apcu_fetch($prefix . '1:' . $_GET['key']) : null;
header('Content-Type: application/json');
echo json_encode(['keys' => $keys, 'value' => $value]);
