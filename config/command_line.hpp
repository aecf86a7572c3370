#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/listen_address.hpp"
#include "config/php_cli_args.hpp"
#include "config/server_config.hpp"

namespace spindle::config {

/// What the user asked the binary to do.
enum class command_kind {
    php_server,  ///< run the server with command_line::config
    run,         ///< run the server described by command_line::config_file
    adapt,       ///< print config_file as the JSON document
    validate,    ///< check config_file and exit
    reload,      ///< check config_file and send it to the running server's admin endpoint
    cert,        ///< write a local CA and certificate into cert_dir and exit
    php_cli,     ///< run a PHP script as PHP's command-line interpreter would (php_cli)
    version,     ///< print the version and exit
    help,        ///< print command_line::help_text and exit successfully
};

/// The name of a command kind, for logs and test output.
std::string_view to_string(command_kind kind);

/// The parsed command line.
struct command_line {
    command_kind kind = command_kind::help;
    server_config config;     ///< php_server: defaults overridden by the flags given
    std::string help_text;    ///< help: the text to print, ending in a newline
    std::string config_file;  ///< run, adapt, validate: the file to read
    std::string adapter;      ///< run, adapt, validate: "caddyfile" or "json"
    /// reload --address: the admin endpoint to send to; nullopt: the file's `admin`.
    std::optional<listen_address> admin_address;
    std::string cert_dir;                 ///< cert: where the files go
    std::vector<std::string> cert_hosts;  ///< cert: names and addresses it is for
    php_cli_args php_cli;                 ///< php_cli: the options and the script
    /// run --processes: replaces the file's processes; nullopt: the file's.
    std::optional<std::size_t> processes;
};

/// Parses argv (argv[0] is the program). Commands: "php-server [flags]", "run", "adapt" and
/// "validate" with "--config FILE" (default ./Caddyfile) and "--adapter caddyfile|json"
/// (default: json for a .json file, else caddyfile), "version" (or
/// "--version"), "help [command]" (or "--help", "-h", or no arguments at all). "-h"/"--help"
/// anywhere after a command gives that command's help. Flags take "--flag value" or
/// "--flag=value". Nothing here touches the filesystem: the root is checked when the server
/// starts. "php-cli" (or "php") takes PHP's own options (php_cli_args.hpp), and so does every
/// argument when the program is named "php" (a link to spindle). Throws config_error naming the
/// offending argument on bad input.
command_line parse_command_line(int argc, const char* const argv[]);

}  // namespace spindle::config
