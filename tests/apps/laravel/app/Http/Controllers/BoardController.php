<?php

namespace App\Http\Controllers;

use Illuminate\Http\Request;
use Illuminate\Routing\Controller;
use Illuminate\Support\Facades\Cache;
use Illuminate\Support\Facades\DB;

/**
 * A message board on the app's services: posts in the database (PostgreSQL through the query
 * builder), the visitor's name in the session, the post count cached and a hit counter kept in
 * the cache (Redis when CACHE_DRIVER=redis). The table comes from `artisan board:install`.
 */
class BoardController extends Controller
{
    public function signIn(Request $request)
    {
        $data = $request->validate(['name' => 'required|string|max:40']);
        $request->session()->put('name', $data['name']);
        return redirect()->route('board');
    }

    public function index(Request $request)
    {
        $name = $request->session()->get('name');
        return [
            'name' => $name,
            'mine' => DB::table('board_posts')->where('author', $name)->orderBy('id')->pluck('title'),
            // RedisStore keeps numbers unserialized: a cached count comes back as a string.
            'total' => (int) Cache::remember('board.total', 600, fn () => DB::table('board_posts')->count()),
            'token' => csrf_token(),
        ];
    }

    public function store(Request $request)
    {
        $name = $request->session()->get('name');
        abort_if($name === null, 403, 'sign in first');
        $data = $request->validate(['title' => 'required|string|max:80']);
        $id = DB::table('board_posts')->insertGetId(['author' => $name, 'title' => $data['title']]);
        Cache::forget('board.total');
        return response(['id' => $id], 201);
    }

    /** An atomic counter in the cache: every concurrent hit gets its own number. */
    public function hit()
    {
        return ['hits' => Cache::increment('board.hits')];
    }
}
