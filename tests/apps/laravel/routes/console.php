<?php
// Closure commands, as the skeleton's routes/console.php defines them.

use Illuminate\Support\Facades\Artisan;

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
