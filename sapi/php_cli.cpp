// `spindle php-cli`: PHP's command-line interpreter on the embedded engine. Everything here runs
// on the main thread, which owns PHP for the life of the process (no sapi::engine, no slots).
// Modelled on sapi/cli/php_cli.c, whose behaviour scripts depend on: the SAPI name, $argv, the
// STDIN/STDOUT/STDERR constants, unbuffered output, the exit status.

#include "sapi/php_cli.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "sapi/execution_timer.h"
#include "sapi/ini_settings.hpp"
#include "sapi/php.hpp"
#include "sapi/php_paths.hpp"

#include <main/build-defs.h>

// What php_init_config() found (main/php_ini.c). Exported by libphp, declared in no installed
// header; PHP's own CLI declares them the same way for --ini.
extern "C" {
extern PHPAPI char* php_ini_opened_path;
extern PHPAPI char* php_ini_scanned_path;
extern PHPAPI char* php_ini_scanned_files;
}

namespace spindle::sapi {
namespace {

using config::php_cli_action;

// What sapi_cli_register_variables() puts in $_SERVER besides the environment. Set before the
// request starts, read during its start-up.
const char* php_self = "";
const char* script_filename = "";

// PHP's own names for code that has no file.
constexpr const char* stdin_name = "Standard input code";
constexpr const char* code_name = "Command line code";

// Output is unbuffered and goes straight to the file descriptor, as in PHP's CLI, so that echo
// and fwrite(STDOUT) come out in the order the script wrote them.
size_t cli_ub_write(const char* str, size_t length) noexcept {
    size_t written = 0;
    while (written < length) {
        const ssize_t n = write(STDOUT_FILENO, str + written, length - written);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            php_handle_aborted_connection();
            break;
        }
        written += static_cast<size_t>(n);
    }
    return written;
}

void cli_flush(void*) noexcept {
    std::fflush(stdout);
}

// No HTTP head: header() is accepted and ignored (request_info.no_headers), as in PHP's CLI.
int cli_send_headers(sapi_headers_struct*) noexcept {
    return SAPI_HEADER_SENT_SUCCESSFULLY;
}

// PHP's log (error_log() without a destination, log_errors) goes to standard error.
void cli_log_message(const char* message, int) noexcept {
    std::fprintf(stderr, "%s\n", message);
}

void cli_register_variables(zval* track_vars_array) noexcept {
    php_import_environment_variables(track_vars_array);
    php_register_variable("PHP_SELF", php_self, track_vars_array);
    php_register_variable("SCRIPT_NAME", php_self, track_vars_array);
    php_register_variable("SCRIPT_FILENAME", script_filename, track_vars_array);
    php_register_variable("PATH_TRANSLATED", script_filename, track_vars_array);
    php_register_variable("DOCUMENT_ROOT", "", track_vars_array);
}

// Before php.ini: what PHP's CLI sets, and where things are on the machine (shared with the
// server).
void cli_ini_defaults(HashTable* configuration) {
    add_system_ini_defaults(configuration);
    set_ini_default(configuration, "display_errors", "1");
}

int cli_startup(sapi_module_struct* module) {
    return php_module_startup(module, nullptr);
}

sapi_module_struct cli_module = {
    // Composer, Symfony's console and Laravel's artisan check PHP_SAPI === "cli"; OPcache
    // serves it only with opcache.enable_cli, as for php.
    const_cast<char*>("cli"),
    const_cast<char*>("Command Line Interface (Spindle)"),

    cli_startup,                  // startup
    php_module_shutdown_wrapper,  // shutdown

    nullptr,  // activate
    nullptr,  // deactivate

    cli_ub_write,  // unbuffered write
    cli_flush,     // flush
    nullptr,       // get uid
    nullptr,       // getenv: the process environment

    php_error,  // error handler

    nullptr,           // header handler
    cli_send_headers,  // send headers handler
    nullptr,           // send header handler

    nullptr,  // read POST data
    nullptr,  // read Cookies

    cli_register_variables,  // register server variables
    cli_log_message,         // log message
    nullptr,                 // request time: now
    nullptr,                 // child terminate

    STANDARD_SAPI_MODULE_PROPERTIES};

// The path a link named php was started by, absolute, the link itself kept: PHP would resolve it
// to the spindle binary, and a script that runs PHP_BINARY again (Composer's @php, Symfony's
// Process, Laravel's scheduler) would start spindle without php-cli. Empty for any other name.
std::string php_link_path(const char* program) {
    const std::string_view invoked(program);
    const std::size_t slash = invoked.rfind('/');
    if (invoked.substr(slash + 1) != "php") {
        return {};
    }
    auto resolve_directory = [](const std::string& directory) -> std::string {
        char* resolved = realpath(directory.c_str(), nullptr);
        if (resolved == nullptr) {
            return {};
        }
        std::string path = std::string(resolved) + "/php";
        std::free(resolved);
        return path;
    };
    if (slash != std::string_view::npos) {
        return resolve_directory(slash == 0 ? "/" : std::string(invoked.substr(0, slash)));
    }
    // Found through PATH, as the shell found it: the first directory with an executable php.
    const char* path = std::getenv("PATH");
    std::string_view directories = path != nullptr ? path : "";
    while (!directories.empty()) {
        const std::size_t colon = directories.find(':');
        const std::string directory(directories.substr(0, colon));
        directories.remove_prefix(colon == std::string_view::npos ? directories.size() : colon + 1);
        const std::string candidate = (directory.empty() ? "." : directory) + "/php";
        if (access(candidate.c_str(), X_OK) == 0) {
            return resolve_directory(directory.empty() ? "." : directory);
        }
    }
    return {};
}

// Replaces what PHP's start-up made PHP_BINARY (and PG(php_binary), which PHP frees with free()).
void set_php_binary(const std::string& path) {
    auto* constant = static_cast<zend_constant*>(
        zend_hash_str_find_ptr(EG(zend_constants), "PHP_BINARY", sizeof("PHP_BINARY") - 1));
    if (constant == nullptr || Z_TYPE(constant->value) != IS_STRING) {
        return;
    }
    zend_string_release(Z_STR(constant->value));
    ZVAL_STR(&constant->value, zend_string_init(path.data(), path.size(), 1));
    std::free(PG(php_binary));
    PG(php_binary) = strdup(path.c_str());
}

// PHP's CLI settings, which php.ini cannot override (ini_entries come after it), then OPcache
// (a shared object in 8.2, loaded by name as the server loads it), then -d in order.
std::string ini_entries(const config::php_cli_args& args) {
    std::string entries =
        "html_errors=0\nregister_argc_argv=1\nimplicit_flush=1\noutput_buffering=0\n"
        "max_execution_time=0\nmax_input_time=-1\n"
        "zend_extension=" +
        current_php_paths().extension_dir + "/opcache.so\n";
    for (const auto& [name, value] : args.ini_settings) {
        append_ini_entry(entries, name, value);
    }
    return entries;
}

// STDIN, STDOUT and STDERR as stream resources (PHP's cli_register_file_handles). The SAPI's
// name makes php://stdin the process's own descriptor 0 the first time, not a copy.
void register_standard_streams() {
    php_stream* in = php_stream_open_wrapper_ex("php://stdin", "rb", 0, nullptr, nullptr);
    php_stream* out = php_stream_open_wrapper_ex("php://stdout", "wb", 0, nullptr, nullptr);
    php_stream* err = php_stream_open_wrapper_ex("php://stderr", "wb", 0, nullptr, nullptr);
    if (in == nullptr || out == nullptr || err == nullptr) {
        for (php_stream* stream : {in, out, err}) {
            if (stream != nullptr) {
                php_stream_close(stream);
            }
        }
        return;
    }
    auto define = [](const char* name, php_stream* stream) {
        zend_constant constant;
        php_stream_to_zval(stream, &constant.value);
        ZEND_CONSTANT_SET_FLAGS(&constant, 0, 0);
        constant.name = zend_string_init_interned(name, std::strlen(name), 0);
        zend_register_constant(&constant);
    };
    define("STDIN", in);
    define("STDOUT", out);
    define("STDERR", err);
}

int compare_module_names(Bucket* a, Bucket* b) {
    return strcasecmp(static_cast<zend_module_entry*>(Z_PTR(a->val))->name,
                      static_cast<zend_module_entry*>(Z_PTR(b->val))->name);
}

int compare_extension_names(const zend_llist_element** a, const zend_llist_element** b) {
    // A list element holds its data inline.
    return std::strcmp(reinterpret_cast<const zend_extension*>((*a)->data)->name,
                       reinterpret_cast<const zend_extension*>((*b)->data)->name);
}

// `php -m`: the extensions by name, then the Zend extensions (OPcache).
void print_modules() {
    php_printf("[PHP Modules]\n");
    HashTable sorted;
    zend_hash_init(&sorted, zend_hash_num_elements(&module_registry), nullptr, nullptr, 0);
    zend_hash_copy(&sorted, &module_registry, nullptr);
    zend_hash_sort(&sorted, compare_module_names, 0);
    zval* entry = nullptr;
    ZEND_HASH_MAP_FOREACH_VAL(&sorted, entry) {
        php_printf("%s\n", static_cast<zend_module_entry*>(Z_PTR_P(entry))->name);
    }
    ZEND_HASH_FOREACH_END();
    zend_hash_destroy(&sorted);

    php_printf("\n[Zend Modules]\n");
    zend_llist extensions;
    zend_llist_copy(&extensions, &zend_extensions);
    extensions.dtor = nullptr;
    zend_llist_sort(&extensions, compare_extension_names);
    for (auto* element = extensions.head; element != nullptr; element = element->next) {
        php_printf("%s\n", reinterpret_cast<const zend_extension*>(element->data)->name);
    }
    zend_llist_destroy(&extensions);
    php_printf("\n");
}

// The action, inside the started request; sets EG(exit_status) where PHP's CLI does.
void perform(const config::php_cli_args& args, zend_file_handle* file) {
    switch (args.action) {
        case php_cli_action::version:
            php_printf("PHP %s (cli) (Spindle " SPINDLE_VERSION
                       ") (ZTS)\n"
                       "Copyright (c) The PHP Group\n%s",
                       PHP_VERSION, get_zend_version());
            break;
        case php_cli_action::modules: print_modules(); break;
        case php_cli_action::info: php_print_info(PHP_INFO_ALL); break;
        case php_cli_action::ini_files:
            zend_printf("Configuration File (php.ini) Path: %s\n", PHP_CONFIG_FILE_PATH);
            zend_printf("Loaded Configuration File:         %s\n",
                        php_ini_opened_path != nullptr ? php_ini_opened_path : "(none)");
            zend_printf("Scan for additional .ini files in: %s\n",
                        php_ini_scanned_path != nullptr ? php_ini_scanned_path : "(none)");
            zend_printf("Additional .ini files parsed:      %s\n",
                        php_ini_scanned_files != nullptr ? php_ini_scanned_files : "(none)");
            break;
        case php_cli_action::lint:
            if (php_lint_script(file) == SUCCESS) {
                zend_printf("No syntax errors detected in %s\n", php_self);
                EG(exit_status) = 0;
            } else {
                zend_printf("Errors parsing %s\n", php_self);
                EG(exit_status) = 255;
            }
            break;
        case php_cli_action::run_code:
            register_standard_streams();
            zend_eval_string_ex(args.script.c_str(), nullptr, code_name, 1);
            break;
        case php_cli_action::run_file:
            register_standard_streams();
            php_execute_script(file);
            break;
        case php_cli_action::run_stdin:
            // STDIN is the script itself; PHP defines none of the three for it.
            php_execute_script(file);
            break;
        case php_cli_action::help: break;  // printed by the command line
    }
}

// exit() and fatal errors end the action by a longjmp to here; nothing of the caller's lives in
// this frame.
void run_action(const config::php_cli_args& args, zend_file_handle* file) {
    zend_try {
        perform(args, file);
    }
    zend_end_try();
}

// Opens the script to run or lint: the named file, or standard input. False, after PHP's own
// message on standard output, when the file cannot be read.
bool open_script(const config::php_cli_args& args, zend_file_handle& file, std::string& real_path) {
    if (args.script.empty()) {
        zend_stream_init_fp(&file, stdin, stdin_name);
        file.primary_script = 1;
        php_self = stdin_name;
        return true;
    }
    FILE* fp = std::fopen(args.script.c_str(), "rb");
    if (fp == nullptr) {
        std::printf("Could not open input file: %s\n", args.script.c_str());
        std::fflush(stdout);
        return false;
    }
    zend_stream_init_fp(&file, fp, args.script.c_str());
    file.primary_script = 1;
    php_self = args.script.c_str();
    script_filename = args.script.c_str();
    if (char* resolved = realpath(args.script.c_str(), nullptr)) {
        real_path = resolved;
        std::free(resolved);
    }
    return true;
}

// One request around the action, as PHP's CLI runs it; returns the exit status.
int run_request(const config::php_cli_args& args) {
    // PHP's CLI never changes directory to the script's.
    SG(options) |= SAPI_OPTION_NO_CHDIR;
    zend_file_handle file;
    std::string real_path;
    const bool reads_script = args.action == php_cli_action::run_file ||
                              args.action == php_cli_action::run_stdin ||
                              args.action == php_cli_action::lint;
    php_self = stdin_name;  // -r and the informational actions: what php shows
    if (reads_script && !open_script(args, file, real_path)) {
        return 1;
    }

    // $argv: the script (or PHP's name for code without a file), then its arguments.
    std::vector<char*> argv{const_cast<char*>(php_self)};
    for (const std::string& arg : args.script_args) {
        argv.push_back(const_cast<char*>(arg.c_str()));
    }
    argv.push_back(nullptr);
    SG(request_info).argc = static_cast<int>(argv.size() - 1);
    SG(request_info).argv = argv.data();
    SG(request_info).path_translated =
        const_cast<char*>(real_path.empty() ? php_self : real_path.c_str());

    const bool started = php_request_startup() == SUCCESS;
    if (started) {
        SG(headers_sent) = 1;
        SG(request_info).no_headers = 1;
        CG(skip_shebang) = 1;
        zend_is_auto_global(ZSTR_KNOWN(ZEND_STR_AUTOGLOBAL_SERVER));
        PG(during_request_startup) = 0;
        run_action(args, reads_script ? &file : nullptr);
    } else {
        std::fprintf(stderr, "Could not start the PHP request\n");
    }
    // The handle's name lives in request memory, which the shutdown frees.
    if (reads_script) {
        zend_destroy_file_handle(&file);
    }
    int status = 1;
    if (started) {
        php_request_shutdown(nullptr);
        // Read after the shutdown: a shutdown function or destructor may still exit(N).
        status = EG(exit_status);
    }
    SG(request_info).argv = nullptr;
    SG(request_info).argc = 0;
    return status;
}

}  // namespace

int run_php_cli(const config::php_cli_args& args, const char* program) {
    php_tsrm_startup();
    ZEND_TSRMLS_CACHE_UPDATE();
    sapi_startup(&cli_module);
    cli_module.ini_defaults = cli_ini_defaults;
    cli_module.phpinfo_as_text = 1;
    cli_module.php_ini_ignore_cwd = 1;
    cli_module.php_ini_ignore = args.no_ini ? 1 : 0;
    // -c, else an installed tree's etc/spindle (php_paths.hpp), else PHP's own search.
    const php_paths& paths = current_php_paths();
    std::string ini_path = args.ini_path.value_or(ini_search_override(paths).value_or(""));
    cli_module.php_ini_path_override = ini_path.empty() ? nullptr : ini_path.data();
    std::string entries = ini_entries(args);
    cli_module.ini_entries = entries.data();
    // PHP derives PHP_BINARY from it (resolving links; php_link_path() undoes that).
    cli_module.executable_location = const_cast<char*>(program);

    int status = 1;
    std::optional<ini_scan_dir_scope> scan_dir(std::in_place, paths);
    const bool started = cli_module.startup(&cli_module) != FAILURE;
    scan_dir.reset();
    if (!started) {
        std::fprintf(stderr, "Could not start PHP\n");
    } else {
        if (const std::string link = php_link_path(program); !link.empty()) {
            set_php_binary(link);
        }
        status = run_request(args);
        spindle_delete_execution_timer();
        php_module_shutdown();
    }
    sapi_shutdown();
    tsrm_shutdown();
    return status;
}

}  // namespace spindle::sapi
