<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Articles - {{ config('app.name') }}</title></head>
<body>
<h1>Articles</h1>
<ol class="articles">
@foreach ($articles as $article)
<li id="article-{{ $article->id }}"><h2>{{ $article->title }}</h2>
<p class="meta">{{ $article->author }}, {{ $article->published_at->format('j F Y') }}</p>
<p>{{ \Illuminate\Support\Str::limit($article->body, 120) }}</p></li>
@endforeach
</ol>
<p class="count">{{ $articles->count() }} articles</p>
</body>
</html>
