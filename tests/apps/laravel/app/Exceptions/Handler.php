<?php

namespace App\Exceptions;

use Illuminate\Foundation\Exceptions\Handler as ExceptionHandler;

/** The skeleton's exception handler: Laravel's own rendering (error pages, 419, JSON errors). */
class Handler extends ExceptionHandler
{
    protected $dontFlash = ['password'];
}
