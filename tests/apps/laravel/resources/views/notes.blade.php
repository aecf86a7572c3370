<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{{ config('app.name') }}</title></head>
<body>
<h1>Notes</h1>
@if (session('status'))
<p class="status">{{ session('status') }}</p>
@endif
@error('title')
<p class="error">{{ $message }}</p>
@enderror
<ul>
@forelse ($notes as $id => $note)
<li><a href="{{ route('notes.show', ['id' => $id]) }}">{{ $note }}</a></li>
@empty
<li class="empty">No notes yet.</li>
@endforelse
</ul>
<form method="post" action="{{ route('notes.store') }}">
@csrf
<input name="title" value="{{ old('title') }}">
<button>Save</button>
</form>
<form method="post" action="{{ route('notes.clear') }}">
@csrf
@method('DELETE')
<button>Clear</button>
</form>
</body>
</html>
