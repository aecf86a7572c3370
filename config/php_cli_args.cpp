#include "config/php_cli_args.hpp"

#include <algorithm>
#include <array>

#include "config/config_error.hpp"

namespace spindle::config {

namespace {

// --ini has no short form; this stands for it in the table.
constexpr char ini_option = '\x01';

struct option_spec {
    char short_name;
    std::string_view long_name;
    bool takes_value;
};

// PHP's own names for them (sapi/cli/php_cli.c), so that `php -d x=1 -f f.php` and
// `php --define x=1 --file f.php` both mean here what they mean to php.
constexpr auto options = std::to_array<option_spec>({
    {'c', "php-ini", true},
    {'n', "no-php-ini", false},
    {'d', "define", true},
    {'f', "file", true},
    {'r', "run", true},
    {'l', "syntax-check", false},
    {'v', "version", false},
    {'m', "modules", false},
    {'i', "info", false},
    {'h', "help", false},
    {ini_option, "ini", false},
    // Accepted for compatibility and without effect, as in php: no HTTP head is ever written,
    // and the CLI never changes into the script's directory.
    {'q', "no-header", false},
    {'C', "no-chdir", false},
});

// php's options that make no sense without its own loop over input lines, its built-in web
// server or its interactive shell; named so that their absence is not mistaken for a typo.
constexpr std::string_view unsupported_short = "aBRFEHsSwtze";
constexpr std::array<std::string_view, 15> unsupported_long{"interactive",
                                                            "process-begin",
                                                            "process-code",
                                                            "process-file",
                                                            "process-end",
                                                            "hide-args",
                                                            "syntax-highlight",
                                                            "strip",
                                                            "zend-extension",
                                                            "server",
                                                            "docroot",
                                                            "rf",
                                                            "rc",
                                                            "re",
                                                            "ri"};

/// What the options ask for, before it becomes one action.
struct parse_state {
    php_cli_args result;
    std::optional<php_cli_action> informational;  ///< -h, -v, -m, -i: the first one given wins
    bool lint = false;
    bool code = false;  ///< -r given
    bool file = false;  ///< -f given
};

void add_ini_setting(parse_state& state, std::string_view value) {
    const std::size_t equals = value.find('=');
    const std::string_view name = value.substr(0, equals);
    if (name.empty()) {
        throw config_error("-d needs a directive name: -d NAME[=VALUE]");
    }
    // `-d display_errors` means "1", as in php.
    state.result.ini_settings.emplace_back(
        name, equals == std::string_view::npos ? "1" : value.substr(equals + 1));
}

void apply(parse_state& state, char option, std::string_view value) {
    php_cli_args& result = state.result;
    switch (option) {
        case 'c': result.ini_path = std::string(value); break;
        case 'n': result.no_ini = true; break;
        case 'd': add_ini_setting(state, value); break;
        case 'f':
        case 'r':
            if (state.code || state.file) {
                throw config_error("give one of -r CODE and -f FILE, once");
            }
            (option == 'r' ? state.code : state.file) = true;
            result.script = value;
            break;
        case 'l': state.lint = true; break;
        case 'v':
        case 'm':
        case 'i':
        case 'h':
        case ini_option:
            if (!state.informational) {
                state.informational = option == 'v'          ? php_cli_action::version
                                      : option == 'm'        ? php_cli_action::modules
                                      : option == 'i'        ? php_cli_action::info
                                      : option == ini_option ? php_cli_action::ini_files
                                                             : php_cli_action::help;
            }
            break;
        default: break;
    }
}

const option_spec& find_short(char name) {
    const auto* found = std::find_if(options.begin(), options.end(),
                                     [&](const option_spec& o) { return o.short_name == name; });
    if (found != options.end() && name != ini_option) {
        return *found;
    }
    if (unsupported_short.find(name) != std::string_view::npos) {
        throw config_error(std::string("php's option -") + name +
                           " is not supported by spindle php-cli");
    }
    throw config_error(std::string("unknown option -") + name + " (see spindle php-cli -h)");
}

const option_spec& find_long(std::string_view name) {
    const auto* found = std::find_if(options.begin(), options.end(),
                                     [&](const option_spec& o) { return o.long_name == name; });
    if (found != options.end()) {
        return *found;
    }
    if (std::find(unsupported_long.begin(), unsupported_long.end(), name) !=
        unsupported_long.end()) {
        throw config_error("php's option --" + std::string(name) +
                           " is not supported by spindle php-cli");
    }
    throw config_error("unknown option --" + std::string(name) + " (see spindle php-cli -h)");
}

// The value of an option given as its own argument ("-d x=1", "--define x=1").
std::string_view next_value(std::span<const std::string_view> args, std::size_t& i,
                            std::string_view display) {
    if (i + 1 >= args.size()) {
        throw config_error("option " + std::string(display) + " needs a value");
    }
    return args[++i];
}

}  // namespace

php_cli_args parse_php_cli_args(std::span<const std::string_view> args) {
    parse_state state;
    bool end_of_options = false;  // "--" seen
    std::size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string_view arg = args[i];
        if (arg == "--") {
            end_of_options = true;
            ++i;
            break;
        }
        if (arg.size() < 2 || arg[0] != '-') {
            break;  // the script's name, or the first of the script's arguments
        }
        if (arg.starts_with("--")) {
            const std::string_view body = arg.substr(2);
            const std::size_t equals = body.find('=');
            const option_spec& option = find_long(body.substr(0, equals));
            const std::string display = "--" + std::string(option.long_name);
            if (!option.takes_value && equals != std::string_view::npos) {
                throw config_error("option " + display + " takes no value");
            }
            const std::string_view value = !option.takes_value ? std::string_view()
                                           : equals != std::string_view::npos
                                               ? body.substr(equals + 1)
                                               : next_value(args, i, display);
            apply(state, option.short_name, value);
            continue;
        }
        // Short options, several switches in one argument ("-nl") and a value either attached
        // ("-dmemory_limit=1G") or in the next argument.
        for (std::size_t at = 1; at < arg.size(); ++at) {
            const option_spec& option = find_short(arg[at]);
            if (!option.takes_value) {
                apply(state, option.short_name, {});
                continue;
            }
            const std::string display = std::string("-") + option.short_name;
            apply(state, option.short_name,
                  at + 1 < arg.size() ? arg.substr(at + 1) : next_value(args, i, display));
            break;
        }
    }

    php_cli_args& result = state.result;
    std::span<const std::string_view> rest = args.subspan(i);
    // The first argument left names the script, unless -r or -f already gave it, or "--" came
    // first: `php -- a b` reads the script from standard input and gives it a and b.
    if (!state.code && !state.file && !end_of_options && !rest.empty()) {
        // "-" is standard input, as for most Unix tools.
        if (rest.front() != "-") {
            result.script = rest.front();
            state.file = true;
        }
        rest = rest.subspan(1);
    }
    result.script_args.assign(rest.begin(), rest.end());

    if (state.informational) {
        result.action = *state.informational;
    } else if (state.lint) {
        if (state.code) {
            throw config_error("-l checks a file or standard input, not -r code");
        }
        result.action = php_cli_action::lint;
    } else {
        result.action = state.code   ? php_cli_action::run_code
                        : state.file ? php_cli_action::run_file
                                     : php_cli_action::run_stdin;
    }
    return result;
}

std::string php_cli_help(std::string_view program) {
    const std::string p(program);
    return "Usage: " + p + " [options] [-f] <file> [--] [args...]\n" + "   " + p +
           " [options] -r <code> [--] [args...]\n" + "   " + p +
           " [options] [-- args...]   (the script on standard input)\n"
           "\n"
           "Runs a PHP script with the PHP that Spindle embeds (same version and extensions),\n"
           "as PHP's own command-line interpreter does: PHP_SAPI is \"cli\", STDIN, STDOUT and\n"
           "STDERR are defined, the exit status is the script's.\n"
           "\n"
           "  -c <path>|<file> look for php.ini in this directory, or use this file\n"
           "  -n               no configuration (ini) files\n"
           "  -d foo[=bar]     define INI entry foo with value 'bar' ('1' without a value)\n"
           "  -f <file>        parse and execute <file>\n"
           "  -r <code>        run PHP <code> without using script tags <?..?>\n"
           "  -l               syntax check only (lint)\n"
           "  -i               PHP information (phpinfo)\n"
           "  -m               show compiled in modules\n"
           "  -v               version number\n"
           "  --ini            show the configuration file names\n"
           "  -h               this help\n"
           "  --               args... arguments passed to the script; needed when the first\n"
           "                   starts with - or when the script is read from standard input\n";
}

}  // namespace spindle::config
