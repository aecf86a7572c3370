<?php
declare(strict_types=1);

namespace Shop\Http;

final class JsonResponse extends Response
{
    public function __construct(mixed $data, int $status = 200)
    {
        parent::__construct($status, json_encode($data, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES));
        $this->headers['Content-Type'] = 'application/json';
    }
}
