#include "config/command_line.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "config/config_error.hpp"
#include "config/ip_ranges.hpp"
#include "config/listen_address.hpp"
#include "config/units.hpp"
#include "config/watch_pattern.hpp"

namespace spindle::config {

namespace {

/// The php-server settings as they are built up flag by flag.
struct php_server_args {
    server_config config;
    bool listen_given = false;              ///< the first --listen replaces the default address
    std::uint64_t worker_max_requests = 0;  ///< applies to every --worker, whatever the order
    std::vector<std::string> watch;         ///< --watch: applies to every --worker too
    std::string config_file = "Caddyfile";  ///< run, adapt, validate, reload: --config
    std::string address;                    ///< reload --address; empty: the config's admin
    std::string adapter;                    ///< --adapter; empty: from the file name
    std::optional<std::string> tls_certificate;  ///< php-server --tls-cert
    std::optional<std::string> tls_key;          ///< php-server --tls-key
    std::string cert_dir = "spindle-certs";      ///< cert --dir
    std::vector<std::string> cert_hosts;         ///< cert --host
    std::optional<std::size_t> processes;        ///< --processes (run: over the file's)
};

/// Applies a flag's value; throws config_error with a message naming the value.
using apply_fn = void (*)(php_server_args&, std::string_view value);
/// The default a flag has in a fresh server_config, for the help text.
using default_fn = std::string (*)(const server_config&);

/// One command-line flag. The help text is generated from these, so every accepted flag is
/// listed and shows the real default.
struct flag_spec {
    std::string_view name;        ///< long name without "--"
    char short_name;              ///< '\0' when there is none
    std::string_view value_name;  ///< empty for a switch, which takes no value
    std::string_view description;
    apply_fn apply;
    default_fn default_text;  ///< nullptr when the description already says it
};

/// One command: what `spindle <name> --help` prints and which flags it takes.
struct command_spec {
    std::string_view name;
    std::string_view usage;        ///< after "Usage: spindle "
    std::string_view summary;      ///< one line in the command list
    std::string_view description;  ///< a sentence at the top of the command's help
    std::span<const flag_spec> flags;
};

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

std::size_t parse_positive_count(std::string_view value) {
    std::size_t count = 0;
    for (char c : value) {
        const auto digit = static_cast<std::size_t>(c - '0');
        if (!is_digit(c) || count > (std::numeric_limits<std::size_t>::max() - digit) / 10) {
            count = 0;
            break;
        }
        count = count * 10 + digit;
    }
    if (count == 0) {
        throw config_error("\"" + std::string(value) + "\" is not a positive integer");
    }
    return count;
}

bool ends_with_ignoring_case(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() &&
           std::equal(suffix.begin(), suffix.end(), text.end() - suffix.size(), [](char a, char b) {
               return a == (b >= 'A' && b <= 'Z' ? b - 'A' + 'a' : b);
           });
}

void set_index(php_server_args& args, std::string_view value) {
    // The router runs {path}/{index} as PHP and treats names starting with '.' as hidden, so
    // only a plain PHP file name can work.
    if (value.find('/') != std::string_view::npos || value.starts_with('.') ||
        !ends_with_ignoring_case(value, ".php")) {
        throw config_error("index \"" + std::string(value) +
                           "\" must be a file name ending in .php, e.g. index.php");
    }
    args.config.sites.front().index = value;
}

void add_listen(php_server_args& args, std::string_view value) {
    listen_address address = parse_listen_address(value);
    std::vector<listen_address>& listen = args.config.sites.front().listen;
    if (!args.listen_given) {
        listen.clear();
        args.listen_given = true;
    }
    if (std::find(listen.begin(), listen.end(), address) != listen.end()) {
        throw config_error("address \"" + std::string(value) + "\" is given twice");
    }
    listen.push_back(std::move(address));
}

// --trusted-proxies 10.0.0.0/8,fd00::/8 or private_ranges; repeatable.
void add_trusted_proxies(php_server_args& args, std::string_view value) {
    std::vector<std::string>& ranges = args.config.trusted_proxies.ranges;
    while (true) {
        const std::size_t comma = value.find(',');
        const std::string_view item = value.substr(0, comma);
        if (item == "private_ranges") {
            const std::vector<std::string>& all = private_ip_ranges();
            ranges.insert(ranges.end(), all.begin(), all.end());
        } else {
            try {
                parse_ip_range(item);
            } catch (const std::invalid_argument& e) {
                throw config_error(e.what());
            }
            ranges.emplace_back(item);
        }
        if (comma == std::string_view::npos) {
            break;
        }
        value.remove_prefix(comma + 1);
    }
}

// A name or address the local certificate is valid for (a subjectAltName).
void add_cert_host(php_server_args& args, std::string_view value) {
    const bool valid = std::all_of(value.begin(), value.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' ||
               c == '.' || c == ':' || c == '*';
    });
    if (!valid || value.size() > 253) {
        throw config_error("\"" + std::string(value) + "\" is not a host name or IP address");
    }
    args.cert_hosts.emplace_back(value);
}

void set_log_level(php_server_args& args, std::string_view value) {
    constexpr std::array<std::string_view, 5> levels{"trace", "debug", "info", "warn", "error"};
    if (std::find(levels.begin(), levels.end(), value) == levels.end()) {
        throw config_error("unknown log level \"" + std::string(value) +
                           "\" (use trace, debug, info, warn or error)");
    }
    args.config.log_level = value;
}

void set_log_format(php_server_args& args, std::string_view value) {
    if (value != "console" && value != "json") {
        throw config_error("unknown log format \"" + std::string(value) +
                           "\" (use console or json)");
    }
    args.config.log_format = value;
}

void add_php_ini_setting(php_server_args& args, std::string_view value) {
    const std::size_t equals = value.find('=');
    const std::string_view key = value.substr(0, equals);
    if (equals == std::string_view::npos || key.empty() ||
        key.find_first_of(" \t\r\n") != std::string_view::npos) {
        throw config_error("\"" + std::string(value) +
                           "\" is not KEY=VALUE (e.g. memory_limit=256M)");
    }
    args.config.php_ini.emplace_back(key, value.substr(equals + 1));
}

void add_env(php_server_args& args, std::string_view value) {
    const std::size_t equals = value.find('=');
    const std::string_view name = value.substr(0, equals);
    if (equals == std::string_view::npos || name.empty()) {
        throw config_error("\"" + std::string(value) + "\" is not NAME=VALUE (e.g. APP_ENV=prod)");
    }
    args.config.env.emplace_back(name, value.substr(equals + 1));
}

// --processes N: php-server's setting, or run's over the file's (at most as many as JSON takes).
void set_processes(php_server_args& args, std::string_view value) {
    const std::size_t count = parse_positive_count(value);
    if (count > 256) {
        throw config_error("\"" + std::string(value) + "\" is more than 256 processes");
    }
    args.processes = count;
    args.config.processes = count;
}

// "FILE" or "FILE,NUM": FrankenPHP's --worker syntax.
void add_worker(php_server_args& args, std::string_view value) {
    worker_config worker;
    const std::size_t comma = value.rfind(',');
    worker.file = value.substr(0, comma);
    if (comma != std::string_view::npos) {
        worker.num = parse_positive_count(value.substr(comma + 1));
    }
    if (worker.file.empty()) {
        throw config_error("\"" + std::string(value) + "\" is not FILE or FILE,NUM");
    }
    args.config.sites.front().workers.push_back(std::move(worker));
}

constexpr auto php_server_flags = std::to_array<flag_spec>({
    {"root", 'r', "DIR", "document root to serve",
     [](php_server_args& args, std::string_view value) { args.config.sites.front().root = value; },
     [](const server_config& config) { return config.sites.front().root; }},
    {"listen", 'l', "ADDR", "address or unix/PATH to bind; repeatable", add_listen,
     [](const server_config& config) {
         std::string text;
         for (const listen_address& address : config.sites.front().listen) {
             text += (text.empty() ? "" : ", ") + to_string(address);
         }
         return text;
     }},
    {"threads", '\0', "N", "PHP threads (default: 2 per CPU, cgroup quota included)",
     [](php_server_args& args, std::string_view value) {
         args.config.num_threads = parse_positive_count(value);
     },
     nullptr},
    {"worker", 'w', "FILE[,NUM]", "worker script on NUM threads (default: 2 per CPU); repeatable",
     add_worker, nullptr},
    {"worker-max-requests", '\0', "N", "recycle a worker thread after N requests (default: never)",
     [](php_server_args& args, std::string_view value) {
         args.worker_max_requests = parse_positive_count(value);
     },
     nullptr},
    {"watch", '\0', "PATTERN", "restart the workers when these files change; repeatable",
     [](php_server_args& args, std::string_view value) {
         try {
             parse_watch_pattern(value, "/");
         } catch (const std::invalid_argument& e) {
             throw config_error(e.what());
         }
         args.watch.emplace_back(value);
     },
     nullptr},
    {"worker-restart-grace", '\0', "DURATION", "wait for running requests on SIGUSR1 restarts",
     [](php_server_args& args, std::string_view value) {
         args.config.worker_restart_grace = parse_duration(value);
     },
     [](const server_config& config) { return format_duration(config.worker_restart_grace); }},
    {"processes", '\0', "N", "server processes; a crashed one is restarted", set_processes,
     [](const server_config& config) { return std::to_string(config.processes); }},
    {"io-threads", '\0', "N", "I/O threads (default: half the CPUs)",
     [](php_server_args& args, std::string_view value) {
         args.config.io_threads = parse_positive_count(value);
     },
     nullptr},
    {"index", '\0', "FILE", "front controller and directory index", set_index,
     [](const server_config& config) { return config.sites.front().index; }},
    {"no-file-server", '\0', "", "serve only PHP, never the other files under the root",
     [](php_server_args& args, std::string_view) { args.config.sites.front().file_server = false; },
     nullptr},
    {"follow-symlinks", '\0', "", "serve files whose symlinks lead outside the root",
     [](php_server_args& args, std::string_view) {
         args.config.sites.front().follow_symlinks = true;
     },
     nullptr},
    {"no-compress", '\0', "", "send responses uncompressed (default: zstd, br, gzip)",
     [](php_server_args& args, std::string_view) { args.config.sites.front().encode.reset(); },
     nullptr},
    // FrankenPHP's php-server flag; the Caddyfile's `log` in a site block.
    {"access-log", 'a', "", "log every request (method, path, status, bytes, time)",
     [](php_server_args& args, std::string_view) { args.config.sites.front().access_log = true; },
     nullptr},
    // Caddy's `servers { trusted_proxies static ... }`, as a flag.
    {"trusted-proxies", '\0', "CIDR,...", "proxies whose X-Forwarded-* headers count; repeatable",
     add_trusted_proxies, nullptr},
    {"trusted-proxies-strict", '\0', "", "client: right-most untrusted X-Forwarded-For entry",
     [](php_server_args& args, std::string_view) { args.config.trusted_proxies.strict = true; },
     nullptr},
    {"php-ini", '\0', "FILE", "php.ini to load instead of the usual lookup",
     [](php_server_args& args, std::string_view value) { args.config.php_ini_file = value; },
     nullptr},
    {"env", '\0', "NAME=VALUE", "environment entry for every script; repeatable", add_env, nullptr},
    {"php-ini-set", '\0', "KEY=VALUE", "set a php.ini directive; repeatable", add_php_ini_setting,
     nullptr},
    {"max-wait-time", '\0', "DURATION", "longest wait for a free PHP thread, then 503",
     [](php_server_args& args, std::string_view value) {
         args.config.max_wait_time = parse_duration(value);
     },
     [](const server_config& config) { return format_duration(config.max_wait_time); }},
    // php-fpm's request_slowlog_timeout.
    {"slowlog-timeout", '\0', "DURATION", "log requests running longer, with PHP backtraces",
     [](php_server_args& args, std::string_view value) {
         args.config.slowlog_timeout = parse_duration(value);
     },
     [](const server_config& config) { return format_duration(config.slowlog_timeout); }},
    {"max-body-size", '\0', "SIZE", "largest request body (413 above)",
     [](php_server_args& args, std::string_view value) {
         args.config.limits.max_body_size = parse_size(value);
     },
     [](const server_config& config) { return format_size(config.limits.max_body_size); }},
    {"max-header-size", '\0', "SIZE", "request line + headers limit (431/414 above)",
     [](php_server_args& args, std::string_view value) {
         const std::size_t size = parse_size(value);
         // No request fits in zero bytes; refuse it rather than answer every request with 431.
         if (size == 0) {
             throw config_error("size must be above 0");
         }
         args.config.limits.max_header_size = size;
     },
     [](const server_config& config) { return format_size(config.limits.max_header_size); }},
    {"read-header-timeout", '\0', "DURATION", "limit to receive the request line and headers",
     [](php_server_args& args, std::string_view value) {
         args.config.limits.read_header_timeout = parse_duration(value);
     },
     [](const server_config& config) {
         return format_duration(config.limits.read_header_timeout);
     }},
    {"read-body-timeout", '\0', "DURATION", "limit to receive the whole request body",
     [](php_server_args& args, std::string_view value) {
         args.config.limits.read_body_timeout = parse_duration(value);
     },
     [](const server_config& config) { return format_duration(config.limits.read_body_timeout); }},
    {"write-timeout", '\0', "DURATION", "longest a response write may make no progress",
     [](php_server_args& args, std::string_view value) {
         args.config.limits.write_timeout = parse_duration(value);
     },
     [](const server_config& config) { return format_duration(config.limits.write_timeout); }},
    {"min-write-rate", '\0', "SIZE", "bytes/s a slow client must take (0: off)",
     [](php_server_args& args, std::string_view value) {
         args.config.limits.min_write_rate = parse_size(value);
     },
     [](const server_config& config) { return format_size(config.limits.min_write_rate); }},
    {"response-memory-size", '\0', "SIZE", "response bytes in memory per connection",
     [](php_server_args& args, std::string_view value) {
         args.config.limits.response_memory_size = parse_size(value);
     },
     [](const server_config& config) { return format_size(config.limits.response_memory_size); }},
    {"response-memory-total", '\0', "SIZE", "response bytes kept in memory in all",
     [](php_server_args& args, std::string_view value) {
         args.config.limits.response_memory_total = parse_size(value);
     },
     [](const server_config& config) { return format_size(config.limits.response_memory_total); }},
    {"max-response-file-size", '\0', "SIZE", "response bytes on disk per response",
     [](php_server_args& args, std::string_view value) {
         args.config.limits.max_response_file_size = parse_size(value);
     },
     [](const server_config& config) { return format_size(config.limits.max_response_file_size); }},
    {"idle-timeout", '\0', "DURATION", "how long an idle keep-alive connection is kept",
     [](php_server_args& args, std::string_view value) {
         args.config.limits.idle_timeout = parse_duration(value);
     },
     [](const server_config& config) { return format_duration(config.limits.idle_timeout); }},
    {"tls-cert", '\0', "FILE", "serve HTTPS with this PEM certificate chain; needs --tls-key",
     [](php_server_args& args, std::string_view value) { args.tls_certificate = value; }, nullptr},
    {"tls-key", '\0', "FILE", "the certificate's private key (PEM)",
     [](php_server_args& args, std::string_view value) { args.tls_key = value; }, nullptr},
    {"admin", '\0', "ADDR|off", "admin endpoint (metrics, status)",
     [](php_server_args& args, std::string_view value) {
         if (value == "off") {
             args.config.admin = std::nullopt;
             return;
         }
         listen_address address;
         try {
             address = parse_listen_address(value);
         } catch (const config_error& e) {
             throw config_error(e.message() + " (or \"off\")");
         }
         if (address.tls) {
             throw config_error("the admin endpoint speaks plain HTTP only");
         }
         if (!address.unix_path.empty()) {
             throw config_error("the admin endpoint listens on TCP (e.g. 127.0.0.1:2019)");
         }
         args.config.admin = address;
     },
     [](const server_config& config) {
         return config.admin ? to_string(*config.admin) : std::string("off");
     }},
    {"debug", 'v', "", "log at debug level (same as --log-level debug)",
     [](php_server_args& args, std::string_view) { args.config.log_level = "debug"; }, nullptr},
    {"log-level", '\0', "LEVEL", "trace, debug, info, warn or error", set_log_level,
     [](const server_config& config) { return config.log_level; }},
    {"log-format", '\0', "FORMAT", "console, or json: one object per line", set_log_format,
     [](const server_config& config) { return config.log_format; }},
});

void set_adapter(php_server_args& args, std::string_view value) {
    if (value != "caddyfile" && value != "json") {
        throw config_error("unknown adapter \"" + std::string(value) +
                           "\" (use caddyfile or json)");
    }
    args.adapter = value;
}

// The flags of the commands that read a configuration file.
constexpr auto config_file_flags = std::to_array<flag_spec>({
    {"config", 'c', "FILE", "configuration file; a .json file is read as JSON",
     [](php_server_args& args, std::string_view value) { args.config_file = value; },
     [](const server_config&) { return std::string("Caddyfile"); }},
    {"adapter", 'a', "NAME", "caddyfile or json (default: from the file name)", set_adapter,
     nullptr},
});

constexpr auto run_flags = std::to_array<flag_spec>({
    config_file_flags[0],
    config_file_flags[1],
    {"processes", '\0', "N", "server processes, over the file's processes (default: the file's)",
     set_processes, nullptr},
});
constexpr command_spec run_command{
    "run", "run [--config FILE] [--adapter caddyfile|json] [--processes N]",
    "serve the sites of a configuration file",
    "Serves the sites a Caddyfile or a JSON configuration describes, after checking all of it.",
    run_flags};
constexpr command_spec adapt_command{
    "adapt", "adapt [--config FILE] [--adapter caddyfile|json]",
    "print a configuration file as JSON",
    "Prints the JSON document a Caddyfile turns into; spindle run reads it the same way.",
    config_file_flags};
constexpr command_spec validate_command{
    "validate", "validate [--config FILE] [--adapter caddyfile|json]", "check a configuration file",
    "Checks a configuration file as spindle run would, without serving: syntax, values, roots\n"
    "and worker files. Exits 0 when it is valid.",
    config_file_flags};
constexpr auto reload_flags = std::to_array<flag_spec>({
    {"config", 'c', "FILE", "configuration file; a .json file is read as JSON",
     [](php_server_args& args, std::string_view value) { args.config_file = value; },
     [](const server_config&) { return std::string("Caddyfile"); }},
    {"adapter", 'a', "NAME", "caddyfile or json (default: from the file name)", set_adapter,
     nullptr},
    {"address", '\0', "HOST:PORT",
     "the running server's admin endpoint (default: the file's admin)",
     [](php_server_args& args, std::string_view value) { args.address = value; }, nullptr},
});
constexpr command_spec reload_command{
    "reload", "reload [--config FILE] [--adapter caddyfile|json] [--address HOST:PORT]",
    "apply a configuration file to the running server",
    "Checks a configuration file as validate does, then sends it to the running server's admin\n"
    "endpoint (POST /load), which applies it without a restart: workers that changed boot a\n"
    "new generation, in-flight requests finish on the old configuration. Exits 0 when it was\n"
    "applied, 2 when the file is invalid, 1 when the server cannot be reached or refused it.",
    reload_flags};
constexpr command_spec php_server_command{
    "php-server", "php-server [flags]", "serve a PHP application from a document root",
    "Serves the PHP application in a document root: a path naming a .php file runs it, a path\n"
    "naming another file serves that file, and any other path runs the index file.",
    php_server_flags};
constexpr auto cert_flags = std::to_array<flag_spec>({
    {"dir", 'd', "DIR", "directory to write ca.crt, cert.pem and key.pem into",
     [](php_server_args& args, std::string_view value) { args.cert_dir = value; },
     [](const server_config&) { return std::string("spindle-certs"); }},
    {"host", '\0', "NAME", "name or IP address it is for; repeatable", add_cert_host,
     [](const server_config&) { return std::string("localhost, 127.0.0.1, ::1"); }},
});
constexpr command_spec cert_command{
    "cert", "cert [--dir DIR] [--host NAME]...",
    "make a local certificate for HTTPS in development",
    "Writes a new local certification authority (ca.crt, its key is not kept) and a certificate\n"
    "it signs (cert.pem, key.pem) into DIR, for spindle php-server --tls-cert/--tls-key or a\n"
    "Caddyfile's tls. Clients trust it through ca.crt (curl --cacert DIR/ca.crt, or the\n"
    "system's trust store). Existing files are never overwritten. Not for production.",
    cert_flags};
// Its options are PHP's (php_cli_args.cpp), not flags of this table; the entry gives the line in
// the command list.
constexpr command_spec php_cli_command{
    "php-cli",
    "php-cli [options] [-f] <file> [--] [args...]",
    "run a PHP script with the embedded PHP, as php would (also: php)",
    "",
    {}};
constexpr command_spec version_command{
    "version", "version", "print the version", "Prints the version of Spindle.", {}};
constexpr command_spec help_command{"help",
                                    "help [command]",
                                    "show the help of a command",
                                    "Lists the commands, or shows the flags of one.",
                                    {}};
constexpr std::array<const command_spec*, 9> commands{
    &php_server_command, &run_command,  &adapt_command,   &validate_command, &reload_command,
    &php_cli_command,    &cert_command, &version_command, &help_command};

std::string flag_label(const flag_spec& flag) {
    std::string label =
        flag.short_name != '\0' ? std::string{'-', flag.short_name} + ", " : std::string("    ");
    label += "--";
    label += flag.name;
    if (!flag.value_name.empty()) {
        label += ' ';
        label += flag.value_name;
    }
    return label;
}

std::string general_help() {
    std::string text =
        "Spindle, an application server for PHP.\n\nUsage: spindle <command> [flags]\n\n"
        "Commands:\n";
    for (const command_spec* command : commands) {
        text += "  " + std::string(command->name);
        text.append(12 - command->name.size(), ' ');
        text += std::string(command->summary) + "\n";
    }
    text += "\nRun \"spindle <command> --help\" for the flags of a command.\n";
    return text;
}

std::string command_help(const command_spec& command) {
    constexpr flag_spec help_flag{"help", 'h', "", "show this help", nullptr, nullptr};
    std::vector<std::string> labels;
    std::size_t width = flag_label(help_flag).size();
    for (const flag_spec& flag : command.flags) {
        labels.push_back(flag_label(flag));
        width = std::max(width, labels.back().size());
    }
    const server_config defaults;
    std::string text = "Usage: spindle " + std::string(command.usage) + "\n\n" +
                       std::string(command.description) + "\n\nFlags:\n";
    auto add_line = [&](const std::string& label, const flag_spec& flag) {
        text += "  " + label + std::string(width - label.size() + 2, ' ') +
                std::string(flag.description);
        if (flag.default_text != nullptr) {
            text += " (default: " + flag.default_text(defaults) + ")";
        }
        text += "\n";
    };
    for (std::size_t i = 0; i < command.flags.size(); ++i) {
        add_line(labels[i], command.flags[i]);
    }
    add_line(flag_label(help_flag), help_flag);
    return text;
}

const command_spec* find_command(std::string_view name) {
    for (const command_spec* command : commands) {
        if (command->name == name) {
            return command;
        }
    }
    return nullptr;
}

bool is_help_flag(std::string_view arg) {
    return arg == "-h" || arg == "--help";
}

/// A following argument that starts with '-' is taken as the next flag, not as this flag's
/// value, so a forgotten value is reported instead of swallowing the next flag. "-5" stays a
/// value so that "--threads -5" is reported as a bad number.
bool looks_like_flag(std::string_view arg) {
    return arg.size() > 1 && arg[0] == '-' && !is_digit(arg[1]);
}

void parse_flags(const command_spec& command, std::span<const std::string_view> args,
                 php_server_args& state) {
    const std::string see_help = " (see spindle " + std::string(command.name) + " --help)";
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view arg = args[i];
        if (!looks_like_flag(arg)) {
            throw config_error("unexpected argument \"" + std::string(arg) + "\" for " +
                               std::string(command.name) + see_help);
        }
        const bool is_long = arg.starts_with("--");
        const std::string_view body = arg.substr(is_long ? 2 : 1);
        const std::size_t equals = body.find('=');
        const std::string_view name = body.substr(0, equals);
        const std::string display = (is_long ? "--" : "-") + std::string(name);

        const auto flag = std::find_if(
            command.flags.begin(), command.flags.end(), [&](const flag_spec& candidate) {
                return is_long ? candidate.name == name
                               : name.size() == 1 && candidate.short_name == name[0];
            });
        if (flag == command.flags.end()) {
            throw config_error("unknown flag " + display + " for " + std::string(command.name) +
                               see_help);
        }
        std::string_view value;
        if (flag->value_name.empty()) {
            if (equals != std::string_view::npos) {
                throw config_error("flag " + display + " takes no value");
            }
        } else if (equals != std::string_view::npos) {
            value = body.substr(equals + 1);
        } else if (i + 1 < args.size() && !looks_like_flag(args[i + 1])) {
            value = args[++i];
        }
        if (!flag->value_name.empty() && value.empty()) {
            throw config_error("flag " + display + " needs a value (" +
                               std::string(flag->value_name) + ")");
        }
        try {
            flag->apply(state, value);
        } catch (const config_error& error) {
            throw config_error("flag " + display + ": " + error.message());
        }
    }
}

// --tls-cert/--tls-key turn every address of the php-server site into HTTPS.
void apply_tls_flags(php_server_args& state) {
    site_config& site = state.config.sites.front();
    if (state.tls_certificate.has_value() != state.tls_key.has_value()) {
        throw config_error(state.tls_certificate ? "--tls-cert needs --tls-key"
                                                 : "--tls-key needs --tls-cert");
    }
    if (!state.tls_certificate) {
        for (const listen_address& address : site.listen) {
            if (address.tls) {
                throw config_error("--listen " + to_string(address) +
                                   " needs --tls-cert and --tls-key (spindle cert makes a local "
                                   "pair)");
            }
        }
        return;
    }
    site.tls =
        tls_config{tls_config::source::files, *state.tls_certificate, *state.tls_key, {}, {}};
    for (listen_address& address : site.listen) {
        if (!address.unix_path.empty()) {
            throw config_error("--listen " + to_string(address) +
                               ": HTTPS on a Unix socket is not supported; the proxy in front "
                               "terminates TLS");
        }
        address.tls = true;
    }
}

command_line of_kind(command_kind kind) {
    command_line result;
    result.kind = kind;
    return result;
}

command_line help_text(std::string text) {
    command_line result = of_kind(command_kind::help);
    result.help_text = std::move(text);
    return result;
}

command_line help_for(std::string_view topic) {
    if (topic.empty()) {
        return help_text(general_help());
    }
    const command_spec* command = find_command(topic);
    if (command == nullptr) {
        throw config_error("unknown command \"" + std::string(topic) + "\" (see spindle --help)");
    }
    if (command == &php_cli_command) {
        return help_text(php_cli_help("spindle php-cli"));
    }
    return help_text(command_help(*command));
}

// `program`: how the usage text names the command.
command_line php_cli_command_line(std::span<const std::string_view> args,
                                  std::string_view program) {
    command_line result = of_kind(command_kind::php_cli);
    try {
        result.php_cli = parse_php_cli_args(args);
    } catch (const config_error& error) {
        throw config_error(std::string(program) + ": " + error.message());
    }
    if (result.php_cli.action == php_cli_action::help) {
        return help_text(php_cli_help(program));
    }
    return result;
}

}  // namespace

std::string_view to_string(command_kind kind) {
    switch (kind) {
        case command_kind::php_server: return "php_server";
        case command_kind::run: return "run";
        case command_kind::adapt: return "adapt";
        case command_kind::validate: return "validate";
        case command_kind::reload: return "reload";
        case command_kind::cert: return "cert";
        case command_kind::php_cli: return "php_cli";
        case command_kind::version: return "version";
        case command_kind::help: return "help";
    }
    return "unknown";
}

command_line parse_command_line(int argc, const char* const argv[]) {
    // Everything after the program's name (none when argc is 0).
    const std::vector<std::string_view> args(argv + std::min(argc, 1), argv + argc);
    // Started through a link named php: the whole command line is php's.
    const std::string_view program = argc > 0 ? std::string_view(argv[0]) : std::string_view();
    if (program.substr(program.rfind('/') + 1) == "php") {
        return php_cli_command_line(args, "php");
    }
    if (argc < 2) {
        return help_for("");
    }
    std::string_view name = args.front();
    const std::span<const std::string_view> rest = std::span(args).subspan(1);
    if (name == "--version") {
        name = "version";
    } else if (is_help_flag(name)) {
        name = "help";
    }
    // `spindle php ...` is php-cli too: with the image's ENTRYPOINT ["spindle"],
    // `docker run IMAGE php artisan migrate` reads as it would with PHP's own images.
    if (name == "php") {
        return php_cli_command_line(rest, "spindle php");
    }
    const command_spec* command = find_command(name);
    if (command == nullptr) {
        // What a script that runs PHP_BINARY again looks like when PHP_BINARY is spindle.
        const bool looks_like_script =
            name.find('/') != std::string_view::npos || ends_with_ignoring_case(name, ".php");
        throw config_error((name.starts_with('-')
                                ? "unknown flag " + std::string(name)
                                : "unknown command \"" + std::string(name) + "\"") +
                           (looks_like_script ? " (to run a PHP script: spindle php-cli " +
                                                    std::string(name) + ", or a link named php)"
                                              : " (see spindle --help)"));
    }
    // Before the search for -h: after the script's name, -h is the script's.
    if (command == &php_cli_command) {
        return php_cli_command_line(rest, "spindle php-cli");
    }
    if (std::any_of(rest.begin(), rest.end(), is_help_flag)) {
        return help_for(command->name);
    }
    if (command == &help_command) {
        if (rest.size() > 1) {
            throw config_error("unexpected argument \"" + std::string(rest[1]) +
                               "\" for help (see spindle help --help)");
        }
        return help_for(rest.empty() ? std::string_view() : rest.front());
    }
    php_server_args state;
    // php-server compresses by default, as FrankenPHP's does; --no-compress turns it off.
    state.config.sites.front().encode = default_php_server_encode();
    parse_flags(*command, rest, state);
    if (command == &version_command) {
        return of_kind(command_kind::version);
    }
    if (command == &run_command || command == &adapt_command || command == &validate_command ||
        command == &reload_command) {
        const command_kind kind = command == &run_command        ? command_kind::run
                                  : command == &adapt_command    ? command_kind::adapt
                                  : command == &validate_command ? command_kind::validate
                                                                 : command_kind::reload;
        command_line result = of_kind(kind);
        result.config_file = std::move(state.config_file);
        result.processes = state.processes;
        if (!state.address.empty()) {
            result.admin_address = parse_listen_address(state.address);
        }
        result.adapter =
            state.adapter.empty() && ends_with_ignoring_case(result.config_file, ".json") ? "json"
            : state.adapter.empty() ? "caddyfile"
                                    : state.adapter;
        return result;
    }
    if (command == &cert_command) {
        command_line result = of_kind(command_kind::cert);
        result.cert_dir = std::move(state.cert_dir);
        result.cert_hosts = std::move(state.cert_hosts);
        if (result.cert_hosts.empty()) {
            result.cert_hosts = {"localhost", "127.0.0.1", "::1"};
        }
        return result;
    }
    if (!state.watch.empty() && state.config.sites.front().workers.empty()) {
        throw config_error("--watch restarts workers: give --worker too");
    }
    for (worker_config& worker : state.config.sites.front().workers) {
        worker.max_requests = state.worker_max_requests;
        worker.watch = state.watch;
    }
    apply_tls_flags(state);
    command_line result = of_kind(command_kind::php_server);
    result.config = std::move(state.config);
    return result;
}

}  // namespace spindle::config
