<?php

namespace App\Models;

use Illuminate\Database\Eloquent\Model;

/** A row of the articles table (`artisan articles:install`), read through Eloquent. */
class Article extends Model
{
    protected $table = 'articles';
    protected $casts = ['published_at' => 'datetime'];
}
