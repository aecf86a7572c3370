<?php
// A worker-mode app: everything above the loop runs once per thread, the handler once per
// request. Serve it with:
//   build/spindle php-server --root examples/worker --worker examples/worker/index.php
declare(strict_types=1);

ignore_user_abort(true);

final class App
{
    private int $served = 0;
    private float $bootedAt;
    /** @var array<string, callable(array): array{int, array<string, string>, string}> */
    private array $routes;

    public function __construct()
    {
        $this->bootedAt = microtime(true);
        // Stand-in for a framework's bootstrap: routes, container, configuration.
        $this->routes = [
            '/' => fn (array $server): array => [200, ['Content-Type' => 'text/html; charset=utf-8'], $this->home()],
            '/api/stats' => fn (array $server): array => [200, ['Content-Type' => 'application/json'], json_encode($this->stats(), JSON_THROW_ON_ERROR)],
        ];
    }

    /** @return array{int, array<string, string>, string} */
    public function handle(array $server): array
    {
        $this->served++;
        $path = parse_url($server['REQUEST_URI'] ?? '/', PHP_URL_PATH) ?: '/';
        $route = $this->routes[$path] ?? null;
        if ($route === null) {
            return [404, ['Content-Type' => 'text/plain; charset=utf-8'], "No page at $path\n"];
        }
        return $route($server);
    }

    private function home(): string
    {
        $name = htmlspecialchars((string)($_GET['name'] ?? 'world'), ENT_QUOTES);
        return "<!doctype html><title>Spindle worker</title><h1>Hello, $name!</h1>"
            . "<p>This thread booted the app once and has served {$this->served} request(s) since.</p>"
            . '<p><a href="/api/stats">/api/stats</a></p>';
    }

    /** @return array<string, mixed> */
    private function stats(): array
    {
        return [
            'served_by_this_thread' => $this->served,
            'booted_seconds_ago' => round(microtime(true) - $this->bootedAt, 3),
            'worker' => $_SERVER['FRANKENPHP_WORKER'] ?? null,
            'memory' => memory_get_usage(),
        ];
    }
}

$app = new App();

$handler = static function () use ($app): void {
    [$status, $headers, $body] = $app->handle($_SERVER);
    http_response_code($status);
    foreach ($headers as $name => $value) {
        header("$name: $value");
    }
    echo $body;
};

while (frankenphp_handle_request($handler)) {
    gc_collect_cycles();
}
