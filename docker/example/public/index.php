<?php
// The example application of docker/compose.yaml: counts its visits in MariaDB.
// The connection settings come from the container's environment (DB_HOST, DB_PORT, DB_NAME,
// DB_USER, DB_PASSWORD), which Spindle passes to every script.
declare(strict_types=1);

header('Content-Type: text/plain; charset=utf-8');

$host = getenv('DB_HOST') ?: '127.0.0.1';
$port = getenv('DB_PORT') ?: '3306';
$name = getenv('DB_NAME') ?: 'app';

try {
    $db = new PDO(
        "mysql:host=$host;port=$port;dbname=$name;charset=utf8mb4",
        getenv('DB_USER') ?: 'app',
        getenv('DB_PASSWORD') ?: '',
        [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION, PDO::ATTR_TIMEOUT => 3],
    );
    $db->exec('CREATE TABLE IF NOT EXISTS visits (
        id TINYINT UNSIGNED PRIMARY KEY,
        count BIGINT UNSIGNED NOT NULL
    )');
    // One statement, so concurrent requests each see their own number: LAST_INSERT_ID(expr)
    // keeps the new count for this connection.
    $db->exec('INSERT INTO visits (id, count) VALUES (1, LAST_INSERT_ID(1))
        ON DUPLICATE KEY UPDATE count = LAST_INSERT_ID(count + 1)');
    $count = (int) $db->query('SELECT LAST_INSERT_ID()')->fetchColumn();
} catch (PDOException $e) {
    // The reason goes to Spindle's log (stderr, `docker compose logs app`), not to the visitor.
    error_log('visit counter: ' . $e->getMessage());
    http_response_code(503);
    echo "The database at $host:$port is unreachable; see the server log.\n";
    return;
}

printf("Hello from Spindle (PHP %s). This page has been visited %d time%s.\n",
    PHP_VERSION, $count, $count === 1 ? '' : 's');
