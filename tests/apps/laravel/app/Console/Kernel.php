<?php

namespace App\Console;

use Illuminate\Foundation\Console\Kernel as ConsoleKernel;

/**
 * The skeleton's console kernel: two of artisan's own commands (the whole set, from
 * ConsoleSupportServiceProvider, needs the cache, queue and database services this cut-down
 * app leaves out) and the closure commands of routes/console.php.
 */
class Kernel extends ConsoleKernel
{
    protected $commands = [
        \Illuminate\Foundation\Console\RouteListCommand::class,
        \Illuminate\Foundation\Console\KeyGenerateCommand::class,
    ];

    protected function commands()
    {
        require base_path('routes/console.php');
    }
}
