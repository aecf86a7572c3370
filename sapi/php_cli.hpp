#pragma once

#include "config/php_cli_args.hpp"

namespace spindle::sapi {

/// Runs PHP as its own command-line interpreter would, with the PHP Spindle embeds: a script,
/// -r code, standard input, a lint, phpinfo, the module list or the version. The SAPI is named
/// "cli", as Composer, Symfony's console and Laravel's artisan require; STDIN, STDOUT and
/// STDERR are defined; output goes to standard output unbuffered and PHP's log to standard
/// error. `program` is argv[0], for PHP_BINARY. Returns the exit status: the script's
/// (exit(N), 255 after a fatal error), 1 when the script cannot be opened.
///
/// Runs on the calling (main) thread and owns PHP for the whole process: never together with
/// sapi::engine, and only once.
int run_php_cli(const config::php_cli_args& args, const char* program);

}  // namespace spindle::sapi
