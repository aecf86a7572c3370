<?php

namespace App\Http\Controllers;

use App\Models\Article;
use Illuminate\Routing\Controller;

/** A list page as most Laravel sites have one: a query through Eloquent, a Blade view. */
class ArticleController extends Controller
{
    public function index()
    {
        return view('articles', ['articles' => Article::orderBy('id')->limit(20)->get()]);
    }
}
