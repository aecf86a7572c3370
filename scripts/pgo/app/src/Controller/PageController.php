<?php
declare(strict_types=1);

namespace Shop\Controller;

use Shop\Http\Request;
use Shop\Http\Response;
use Shop\View\Template;

final class PageController
{
    public function __construct(private readonly Template $view, private readonly string $timezone)
    {
    }

    public function hello(Request $request): Response
    {
        return (new Response(200, 'Hello, ' . ($request->query['name'] ?? 'World') . '!'))
            ->withHeader('Content-Type', 'text/plain');
    }

    public function home(Request $request): Response
    {
        $now = new \DateTimeImmutable('2024-06-01 12:00:00', new \DateTimeZone($this->timezone));
        return new Response(200, $this->view->render('home', [
            'title' => 'Welcome',
            'opening' => $now->format('l, j F Y'),
            'closing' => $now->modify('+9 hours')->format('H:i'),
            'agent' => $request->headers['User-Agent'] ?? 'unknown',
        ]));
    }
}
