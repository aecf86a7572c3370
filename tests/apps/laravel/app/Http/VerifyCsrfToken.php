<?php

namespace App\Http;

use Illuminate\Foundation\Http\Middleware\VerifyCsrfToken as Middleware;

/** CSRF protection for every form; the JSON endpoints are called without a session. */
class VerifyCsrfToken extends Middleware
{
    protected $except = ['api/*'];
}
