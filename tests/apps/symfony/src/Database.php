<?php

namespace App;

use PDO;
use PDOException;

/**
 * One PDO connection per worker thread, kept across its requests as Doctrine keeps its
 * connection in a Symfony worker. Before each request the app checks it (what
 * DoctrinePingConnectionMiddleware and doctrine's `ping` do): a connection the database
 * dropped, after a restart or an idle timeout, is replaced before the request uses it, so no
 * request fails on a stale connection.
 */
final class Database
{
    private ?PDO $pdo = null;
    private bool $reconnected = false;

    public function __construct(private string $dsn)
    {
    }

    /** Runs at the start of each main request (kernel.request). */
    public function checkConnection(): void
    {
        $this->reconnected = false;
        if ($this->pdo === null) {
            return;
        }
        try {
            $this->pdo->query('SELECT 1');
        } catch (PDOException) {
            $this->pdo = null;
            $this->reconnected = true;
        }
    }

    public function pdo(): PDO
    {
        return $this->pdo ??= new PDO($this->dsn, null, null, [
            PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION,
            PDO::ATTR_DEFAULT_FETCH_MODE => PDO::FETCH_ASSOC,
        ]);
    }

    /** Whether this request found the kept connection dead and opened a new one. */
    public function reconnected(): bool
    {
        return $this->reconnected;
    }
}
