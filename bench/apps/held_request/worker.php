<?php
// A worker that holds its request's $_SERVER until the next request replaces it, as
// frameworks do: Symfony Runtime's worker loop keeps $sfRequest (a Request whose ServerBag
// holds $_SERVER) for terminate(), a container keeps its "request" entry.
final class held_request
{
    public function __construct(public readonly array $server)
    {
    }
}

$request = null;
$handler = static function () use (&$request): void {
    $request = new held_request($_SERVER);
    echo 'Hello, ', $request->server['REQUEST_METHOD'], '!';
};
while (frankenphp_handle_request($handler)) {
}
