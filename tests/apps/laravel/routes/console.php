<?php
// Closure commands, as the skeleton's routes/console.php defines them.

use Illuminate\Database\Schema\Blueprint;
use Illuminate\Support\Facades\Artisan;
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
