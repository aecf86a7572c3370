<?php
// What the test drives: pages, a form with validation, JSON in and out, cookies, uploads,
// downloads, streamed output and the framework's own error responses.

use App\Http\Controllers\ArticleController;
use App\Http\Controllers\BoardController;
use App\Http\Controllers\NoteController;
use Illuminate\Http\Request;
use Illuminate\Support\Facades\Route;

Route::get('/', [NoteController::class, 'index'])->name('home');
Route::post('/notes', [NoteController::class, 'store'])->name('notes.store');
Route::delete('/notes', [NoteController::class, 'clear'])->name('notes.clear');
Route::get('/notes/{id}', [NoteController::class, 'show'])->whereNumber('id')->name('notes.show');

Route::post('/board/sign-in', [BoardController::class, 'signIn']);
Route::get('/board', [BoardController::class, 'index'])->name('board');
Route::post('/board', [BoardController::class, 'store']);
Route::get('/board/hit', [BoardController::class, 'hit']);

Route::get('/articles', [ArticleController::class, 'index']);

Route::get('/request', function (Request $request) {
    return response()->json([
        'url' => $request->url(),
        'full_url' => $request->fullUrl(),
        'path' => $request->path(),
        'root' => $request->root(),
        'secure' => $request->secure(),
        'ip' => $request->ip(),
        'query' => $request->query(),
        'route' => route('notes.show', ['id' => 7]),
        'asset' => asset('css/app.css'),
    ]);
});

Route::post('/api/echo', function (Request $request) {
    return response()->json([
        'method' => $request->method(),
        'json' => $request->json()->all(),
        'content_type' => $request->header('Content-Type'),
        'agent' => $request->userAgent(),
    ], 201, ['X-Echo' => 'yes']);
});

Route::post('/api/upload', function (Request $request) {
    $file = $request->file('doc');
    abort_unless($file !== null && $file->isValid(), 422, 'no file');
    $path = $file->storeAs('uploads', 'upload-' . bin2hex(random_bytes(4)) . '.bin');
    return [
        'name' => $file->getClientOriginalName(),
        'size' => $file->getSize(),
        'sha1' => sha1_file(storage_path('app/' . $path)),
        'label' => $request->input('label'),
    ];
});

Route::get('/cookie/set', fn () => response('set')->cookie('flavour', 'oat & honey', 10));
Route::get('/cookie/get', fn (Request $request) => response($request->cookie('flavour') ?? '(none)'));

Route::get('/download', function () {
    $path = storage_path('app/report.txt');
    file_put_contents($path, implode('', array_map(fn ($i) => sprintf("line %04d\n", $i), range(1, 500))));
    return response()->download($path, 'report.txt', ['Content-Type' => 'text/plain']);
});

// The same download handed to the server (x_sendfile in the test's Caddyfile): Symfony's
// BinaryFileResponse, which Laravel's download() returns, trusts the X-Sendfile-Type header
// Spindle sets and sends headers only.
Route::get('/download-sendfile', function () {
    $path = storage_path('app/report.txt');
    file_put_contents($path, implode('', array_map(fn ($i) => sprintf("line %04d\n", $i), range(1, 500))));
    \Symfony\Component\HttpFoundation\BinaryFileResponse::trustXSendfileTypeHeader();
    return response()->download($path, 'report.txt', ['Content-Type' => 'text/plain']);
});

Route::get('/stream', function () {
    return response()->stream(function () {
        foreach (['one', 'two', 'three'] as $part) {
            echo $part, "\n";
            flush();
        }
    }, 200, ['Content-Type' => 'text/plain']);
});

Route::get('/forbidden', fn () => abort(403));
Route::get('/boom', function () {
    throw new RuntimeException('secret detail that must not reach the client');
});
