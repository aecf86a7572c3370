<?php
// Closure commands, as the skeleton's routes/console.php defines them.

use Illuminate\Database\Schema\Blueprint;
use Illuminate\Support\Facades\Artisan;
use Illuminate\Support\Facades\DB;
use Illuminate\Support\Facades\Schema;

// Asks on the terminal (Symfony's QuestionHelper reads the STDIN constant) unless the name is
// given; --shout and the exit status come back through the console.
Artisan::command('greet {name?} {--shout}', function (?string $name = null) {
    $name ??= $this->ask('Who is there?');
    if ($name === null || $name === '') {
        $this->error('Nobody to greet');
        return 3;
    }
    $line = "Hello, {$name}, from " . PHP_SAPI . (app()->runningInConsole() ? ' (console)' : '');
    $this->info($this->option('shout') ? strtoupper($line) : $line);
    return 0;
})->purpose('Greet someone');

// The board's table, made as a migration would make it.
Artisan::command('board:install', function () {
    Schema::dropIfExists('board_posts');
    Schema::create('board_posts', function (Blueprint $table) {
        $table->id();
        $table->string('author', 40)->index();
        $table->string('title', 80);
        $table->timestamps();
    });
    $this->info('board_posts created');
})->purpose('Create the board table');

// The articles the /articles page lists (bench/real_apps.py measures it), with a body long
// enough to be cut by the view.
Artisan::command('articles:install {count=50}', function (int $count) {
    Schema::dropIfExists('articles');
    Schema::create('articles', function (Blueprint $table) {
        $table->id();
        $table->string('title', 120);
        $table->string('author', 40);
        $table->text('body');
        $table->timestamp('published_at');
        $table->timestamps();
    });
    $rows = [];
    for ($i = 1; $i <= $count; ++$i) {
        $rows[] = [
            'title' => "Article {$i} & its <notes>",
            'author' => 'author' . ($i % 7),
            'body' => str_repeat("Paragraph of article {$i}. ", 20),
            'published_at' => sprintf('2026-01-%02d 10:00:00', $i % 28 + 1),
        ];
    }
    DB::table('articles')->insert($rows);
    $this->info("articles created: {$count}");
})->purpose('Create and fill the articles table');
