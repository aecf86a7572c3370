<?php

namespace App\Http\Controllers;

use Illuminate\Http\Request;
use Illuminate\Routing\Controller;

/** Notes kept in the visitor's session: a page, a validated form, JSON by id. */
class NoteController extends Controller
{
    public function index(Request $request)
    {
        return view('notes', ['notes' => $request->session()->get('notes', [])]);
    }

    public function store(Request $request)
    {
        $data = $request->validate(['title' => 'required|string|max:40']);
        $request->session()->push('notes', $data['title']);
        return redirect()->route('home')->with('status', 'Saved "' . $data['title'] . '"');
    }

    public function clear(Request $request)
    {
        $request->session()->forget('notes');
        return redirect()->route('home');
    }

    public function show(Request $request, int $id)
    {
        $notes = $request->session()->get('notes', []);
        abort_unless(isset($notes[$id]), 404);
        return ['id' => $id, 'title' => $notes[$id]];
    }
}
