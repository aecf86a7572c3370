<?php
declare(strict_types=1);

namespace Shop\Http;

class Response
{
    /** @var array<string, string> */
    protected array $headers = ['Content-Type' => 'text/html; charset=utf-8'];

    public function __construct(protected int $status, protected string $body)
    {
    }

    public function withHeader(string $name, string $value): static
    {
        $copy = clone $this;
        $copy->headers[$name] = $value;
        return $copy;
    }

    public function send(): void
    {
        http_response_code($this->status);
        foreach ($this->headers as $name => $value) {
            header($name . ': ' . $value);
        }
        header('Content-Length: ' . strlen($this->body));
        echo $this->body;
    }
}
