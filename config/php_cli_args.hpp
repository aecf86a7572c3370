#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spindle::config {

/// What `spindle php-cli` (or spindle started under the name `php`) is asked to do.
enum class php_cli_action {
    run_file,   ///< run the script `script`
    run_code,   ///< -r: run `script` as PHP code without <?php
    run_stdin,  ///< no script named: read it from standard input
    lint,       ///< -l: check the syntax of `script` (standard input when empty)
    version,    ///< -v
    modules,    ///< -m: the extensions compiled in and loaded
    info,       ///< -i: phpinfo() as text
    ini_files,  ///< --ini: the php.ini files looked for and loaded
    help,       ///< -h
};

/// The options of PHP's own command-line interpreter that `spindle php-cli` takes, parsed as
/// `php` parses them: options up to the script's name (or `--`), everything after it is the
/// script's.
struct php_cli_args {
    php_cli_action action = php_cli_action::run_stdin;
    std::string script;                    ///< run_file, lint: a path; run_code: the code
    std::vector<std::string> script_args;  ///< $argv[1], $argv[2], ...
    std::optional<std::string> ini_path;   ///< -c: a php.ini, or the directory holding one
    bool no_ini = false;                   ///< -n: no php.ini at all
    /// -d NAME[=VALUE], in order; a bare NAME is "1", as in PHP.
    std::vector<std::pair<std::string, std::string>> ini_settings;
};

/// Parses the arguments after `php-cli` (or after the program, for `php`). Throws config_error
/// naming the argument for an unknown option, a missing value or two actions at once.
php_cli_args parse_php_cli_args(std::span<const std::string_view> args);

/// The usage text, for `program` ("spindle php-cli" or "php"), ending in a newline.
std::string php_cli_help(std::string_view program);

}  // namespace spindle::config
