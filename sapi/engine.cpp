#include "sapi/engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <spdlog/spdlog.h>

#include "sapi/backtrace_mailbox.hpp"
#include "sapi/env_functions.hpp"
#include "sapi/env_snapshot.hpp"
#include "sapi/execution_timer.h"
#include "sapi/execution_watchdog.hpp"
#include "sapi/ini_settings.hpp"
#include "sapi/log_sink.hpp"
#include "sapi/pcntl_guard.hpp"
#include "sapi/php.hpp"
#include "sapi/php_functions.hpp"
#include "sapi/php_paths.hpp"
#include "sapi/realpath_function.hpp"
#include "sapi/sapi_module.hpp"
#include "sapi/script_directory.h"
#include "sapi/server_variables.hpp"
#include "sapi/session_shutdown_function.hpp"
#include "sapi/sleep_functions.hpp"
#include "sapi/slot_context.hpp"

// The calling thread's TSRM storage, which SG(), EG(), PG() and CG() in Spindle's own code read
// (ZEND_ENABLE_STATIC_TSRMLS_CACHE, sapi/CMakeLists.txt) instead of calling
// tsrm_get_ls_cache() each time: 63 calls per worker request before. libphp keeps its own
// hidden copy. Set on the main thread after php_tsrm_startup() and on every other thread by
// on_new_thread(); null on threads without PHP state, as tsrm_get_ls_cache() would be.
TSRMLS_MAIN_CACHE_DEFINE()

namespace spindle::sapi {
namespace {

// PHP's SAPI layer is process-global, so are these: one entry per slot, sized once by the
// engine's constructor before any slot thread starts, then each entry is touched only by its
// own slot thread.
std::vector<slot_context> contexts;
// The environments imported once at start-up: [0] the process's with the server's env laid
// over it, then one per site and worker env (php_import_environment_variables hook, getenv).
// Reloads add entries while slot threads read others: its capacity is reserved once, so an
// entry never moves, and each is published to slot threads (through the server's snapshot)
// after it was written. Equal layers share one entry, so reloads that keep the env add none.
std::vector<std::unique_ptr<env_snapshot>> environments;
// The layers each entry of `environments` was built from (control thread only).
std::vector<std::vector<std::vector<std::pair<std::string, std::string>>>> environment_layers;
// Most distinct environments in a process's life.
constexpr std::size_t max_environments = 65536;
// The server's env layer, kept to build the workers' environments.
std::vector<std::pair<std::string, std::string>> server_env;
// The slot the calling thread serves; null on I/O and control threads.
thread_local slot_context* thread_slot = nullptr;
// Why a slot's running request must end, set by another thread and acted on by the slot thread
// at its next VM step.
enum class interrupt_reason : std::uint8_t {
    none,
    stop,     ///< interrupt(): a worker restart or the server's stop outlasted its grace period
    timeout,  ///< the watchdog: a worker request outlasted max_execution_time
};
// Per slot: set by any thread, read and cleared by the slot thread; sized with `contexts`.
std::unique_ptr<std::atomic<interrupt_reason>[]> interrupt_requested;
// Backtrace orders per slot (engine::request_backtrace); sized with `contexts`, each entry
// reached through its slot_context::mailbox.
std::unique_ptr<backtrace_mailbox[]> mailboxes;
// The worker requests' max_execution_time (execution_watchdog.hpp); sized with `contexts`.
std::unique_ptr<execution_watchdog> watchdog;
// How often the watchdog looks: a timed-out worker request ends up to this much late.
constexpr std::chrono::milliseconds watchdog_tick{50};
// max_execution_time's handler as PHP registered it (OnUpdateTimeout), wrapped on slot threads.
ZEND_INI_MH((*php_on_update_timeout)) = nullptr;
// Zend's interrupt hook as it was before ours (OPcache or an extension may have set one).
void (*previous_interrupt_function)(zend_execute_data*) = nullptr;
// Breaks a slot thread out of a blocking system call; its handler does nothing.
const int interrupt_signal = SIGRTMIN + 1;

void on_interrupt_signal(int) {}

// TSRM calls this on a thread whose storage it has just made, before the resource constructors
// and PHP's own thread start-up run; those already call into Spindle (an INI deprecation logged
// through the SAPI, zend_max_execution_timer_init), so the cached storage must be right first.
void on_new_thread(THREAD_T) {
    ZEND_TSRMLS_CACHE_UPDATE();
}

// The mailbox's interrupt (backtrace_mailbox::open): `target` is a slot thread's
// EG(vm_interrupt). Any thread.
void set_vm_interrupt(void* target) noexcept {
    zend_atomic_bool_store(static_cast<zend_atomic_bool*>(target), true);
}

// Answers the waiting backtrace orders that are not for request `keep` (0: none is kept):
// their request is over. An order for `keep` (posted between the slot taking that request
// and binding it) stays for the request's first VM step. Slot thread.
void answer_ended_orders(slot_context& ctx, std::uint64_t keep) noexcept {
    try {
        for (backtrace_order& order : ctx.mailbox->take()) {
            if (keep != 0 && order.request_id == keep) {
                (void)ctx.mailbox->post(std::move(order));
            } else {
                order.done(std::nullopt);
            }
        }
    } catch (const std::exception& e) {
        spdlog::get("sapi")->error("[slot {}] answering backtrace orders failed: {}", ctx.index,
                                   e.what());
    }
}

// Makes slot `index` end its request on its own thread, as interrupt() does, unless something
// already asked it to: at its next VM step, or as soon as a blocking call returns EINTR.
void request_interrupt(std::size_t index, interrupt_reason reason) noexcept {
    slot_context& ctx = contexts[index];
    if (ctx.tsrm_ls == nullptr) {
        return;
    }
    interrupt_reason none = interrupt_reason::none;
    if (reason == interrupt_reason::stop) {
        interrupt_requested[index].store(reason, std::memory_order_release);
    } else if (!interrupt_requested[index].compare_exchange_strong(none, reason,
                                                                   std::memory_order_acq_rel)) {
        return;
    }
    // The same step as PHP's own timeout handler, on another thread's executor globals.
    auto* executor = reinterpret_cast<zend_executor_globals*>(static_cast<char*>(ctx.tsrm_ls) +
                                                              executor_globals_offset);
    zend_atomic_bool_store(&executor->vm_interrupt, true);
    pthread_kill(ctx.thread, interrupt_signal);
}

// set_time_limit() and ini_set("max_execution_time") in a worker's script: PHP re-arms its own
// timer with the new limit, and that timer governs the rest of the request, not the watchdog.
ZEND_INI_MH(on_update_timeout) {
    const int result = php_on_update_timeout(entry, new_value, mh_arg1, mh_arg2, mh_arg3, stage);
    if (thread_slot != nullptr && thread_slot->worker != nullptr &&
        stage != ZEND_INI_STAGE_STARTUP && stage != ZEND_INI_STAGE_DEACTIVATE) {
        watchdog->disarm(thread_slot->index);
        thread_slot->php_timer_armed = true;
    }
    return result;
}

// The calling thread's copy of the max_execution_time INI entry.
zend_ini_entry* timeout_entry() {
    return static_cast<zend_ini_entry*>(zend_hash_str_find_ptr(
        EG(ini_directives), "max_execution_time", sizeof("max_execution_time") - 1));
}

// Runs on the slot thread at its next VM step after interrupt() or the watchdog set
// vm_interrupt.
void on_vm_interrupt(zend_execute_data* execute_data) {
    // A backtrace first: a stop or timeout below does not return.
    if (thread_slot != nullptr && thread_slot->mailbox->has_orders()) {
        serve_backtrace_orders(*thread_slot);
    }
    const interrupt_reason reason = thread_slot != nullptr
                                        ? interrupt_requested[thread_slot->index].exchange(
                                              interrupt_reason::none, std::memory_order_acq_rel)
                                        : interrupt_reason::none;
    if (reason == interrupt_reason::stop) {
        zend_error_noreturn(E_ERROR,
                            "Spindle ended this request: it did not finish within the grace "
                            "period of a worker restart or of the server's stop");
    }
    if (reason == interrupt_reason::timeout) {
        // What PHP's own timer signal leads to: connection_status() reports the timeout,
        // then "Maximum execution time of N seconds exceeded".
        if (zend_on_timeout != nullptr) {
            zend_on_timeout(static_cast<int>(EG(timeout_seconds)));
        }
        zend_timeout();
    }
    if (previous_interrupt_function != nullptr) {
        previous_interrupt_function(execute_data);
    }
}

// The environment $_SERVER starts from: the request's site's, for a worker's request too. A
// worker's own env is in its script's environment (getenv(), $_ENV) and in the $_SERVER it
// boots with, not in its requests' $_SERVER: FrankenPHP's worker tests read it that way
// (TestWorkerEnv, TestWorkerGetOpt), and a request then sees the same $_SERVER whether a
// worker or a classic script answers it.
const env_snapshot& server_environment() noexcept {
    if (thread_slot != nullptr && thread_slot->worker != nullptr && thread_slot->req != nullptr &&
        thread_slot->req != thread_slot->boot_request) {
        return *environments[thread_slot->req->env_index];
    }
    return current_environment();
}

// php_import_environment_variables: $_ENV, and $_SERVER's environment part when the slot's
// own copy cannot be used (sapi_module.cpp). A classic request's $_ENV starts from the
// thread's copy of the environment (env_arrays.hpp).
void import_environment(zval* array) {
    if (array != &PG(http_globals)[TRACK_VARS_ENV]) {
        server_environment().import_into(array);
        return;
    }
    const env_snapshot& environment = current_environment();
    if (thread_slot != nullptr && thread_slot->req != nullptr && thread_slot->worker == nullptr &&
        thread_slot->classic_env_arrays.lend_env(array, environment)) {
        return;
    }
    environment.import_into(array);
}

// Defaults that a php.ini may override (ini_defaults runs before php.ini is parsed): the
// production choices of php.ini-production, except output_buffering, which stays at PHP's
// built-in 0 as in FrankenPHP so that flush() reaches the client; the front end buffers
// unflushed output itself.
void ini_defaults(HashTable* configuration) {
    add_system_ini_defaults(configuration);
    auto set = [configuration](std::string_view name, std::string_view value) {
        set_ini_default(configuration, name, value);
    };
    set("display_errors", "0");
    set("display_startup_errors", "0");
    set("log_errors", "1");
    set("html_errors", "0");
    set("expose_php", "0");
    set("max_execution_time", "30");
    // assert() compiled out (-1 can only be set at start-up): a failing assertion does not
    // throw here where it would not under a php-fpm with php.ini-production.
    set("zend.assertions", "-1");
    // Deprecations unreported: under PHP 8.2 an older app logs one for every dynamic property
    // it creates, on every request.
    set("error_reporting", std::to_string(E_ALL & ~E_DEPRECATED & ~E_STRICT));
    // "<?xml ...?>" in a template is text, not a PHP tag ("<?=" works either way).
    set("short_open_tag", "0");
    // Stack traces without call arguments: a password passed down a call chain does not reach
    // the log with an exception's trace.
    set("zend.exception_ignore_args", "1");
    // $_REQUEST from GET and POST only, as both of PHP's php.ini files have it: a cookie
    // cannot stand in for a form field.
    set("request_order", "GP");
    // argv/argc from the query string is a CLI habit that costs every web request.
    set("register_argc_argv", "0");
    set("opcache.enable", "1");
    set("opcache.validate_timestamps", "1");
    // Uploads up to the front end's default body limit (--max-body-size, 64 MiB) reach PHP.
    set("post_max_size", "64M");
    set("upload_max_filesize", "64M");
    set("max_file_uploads", "20");
    set("memory_limit", "128M");
}

int startup(sapi_module_struct* module) {
    return php_module_startup(module, &spindle_module_entry);
}

// "key=value" lines for PHP's ini_entries: OPcache first (a shared object in 8.2, so it must be
// loaded by name), then the operator's settings, which win over php.ini.
std::string build_ini_entries(const engine_options& options) {
    std::string entries =
        options.opcache ? "zend_extension=" + current_php_paths().extension_dir + "/opcache.so\n"
                        : "";
    for (const auto& [key, value] : options.ini_overrides) {
        append_ini_entry(entries, key, value);
    }
    return entries;
}

char* persistent_copy(const std::string& text) {
    char* copy = static_cast<char*>(malloc(text.size() + 1));
    std::memcpy(copy, text.c_str(), text.size() + 1);
    return copy;
}

// The Cookie header values joined the way PHP parses them.
void collect_cookies(const request& req, std::string& out) {
    out.clear();
    for (const header& h : req.headers) {
        if (h.name.size() == 6 && strncasecmp(h.name.c_str(), "cookie", 6) == 0) {
            if (!out.empty()) {
                out.append("; ");
            }
            out.append(h.value);
        }
    }
}

const header* find_header(const request& req, std::string_view name) {
    for (const header& h : req.headers) {
        if (h.name.size() == name.size() &&
            strncasecmp(h.name.data(), name.data(), name.size()) == 0) {
            return &h;
        }
    }
    return nullptr;
}

double now_seconds() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

// Runs a script file in the current request; false when it ended on a fatal error or an
// uncaught exception (both end up as the request's last error).
bool execute_file(const std::string& path) noexcept {
    zend_file_handle file;
    zend_stream_init_filename(&file, path.c_str());
    file.primary_script = 1;
    zend_try {
        php_execute_script(&file);
    }
    zend_end_try();
    zend_destroy_file_handle(&file);
    constexpr int fatal =
        E_ERROR | E_CORE_ERROR | E_COMPILE_ERROR | E_USER_ERROR | E_PARSE | E_RECOVERABLE_ERROR;
    return !(PG(last_error_message) != nullptr && (PG(last_error_type) & fatal) != 0);
}

// A bailout (max_execution_time, a fatal error) inside a user session save handler skips
// ps_call_handler()'s reset of PS(in_save_handler) (ext/session/mod_user.c). The session's
// request shutdown then refuses to call the handler's close() ("Cannot call session save
// handler in a recursive manner"), and whatever the handler holds stays held: a files session
// wrapped by SessionHandler keeps its flock() for the life of the thread, and every later
// request for that session waits on it (FrankenPHP issue #2368). php-fpm never sees it
// because it kills a timed-out process. No save handler is running any more at this point.
void leave_session_save_handler() noexcept {
    PS(in_save_handler) = 0;
}

}  // namespace

slot_context* current_slot() noexcept {
    return thread_slot;
}

bool request_must_end(const slot_context& ctx) noexcept {
    // PHP's own timer sets timed_out (classic requests); Spindle's interrupts set their reason.
    return zend_atomic_bool_load(&EG(timed_out)) ||
           interrupt_requested[ctx.index].load(std::memory_order_acquire) != interrupt_reason::none;
}

void serve_backtrace_orders(slot_context& ctx) noexcept {
    try {
        // Only a request's own code has a stack worth reporting: not a worker's boot, not the
        // moments between requests.
        const request* running =
            ctx.req != nullptr && ctx.req != ctx.boot_request ? ctx.req : nullptr;
        std::optional<backtrace_report> report;
        for (backtrace_order& order : ctx.mailbox->take()) {
            if (running == nullptr || order.request_id != running->id) {
                order.done(std::nullopt);
                continue;
            }
            if (!report) {
                report.emplace();
                report->slot = ctx.index;
                report->request_id = running->id;
                report->method = running->method;
                report->uri = running->uri;
                report->host = running->server_name;
                report->frames = capture_backtrace();
            }
            const auto now = std::chrono::steady_clock::now().time_since_epoch();
            report->running = std::chrono::duration_cast<std::chrono::nanoseconds>(now) -
                              std::chrono::nanoseconds(order.since);
            order.done(report);
        }
    } catch (const std::exception& e) {
        spdlog::get("sapi")->error("[slot {}] taking a backtrace failed: {}", ctx.index, e.what());
    }
}

const env_snapshot& current_environment() noexcept {
    if (thread_slot != nullptr && thread_slot->worker != nullptr) {
        return *environments[thread_slot->worker->env_index];
    }
    if (thread_slot != nullptr && thread_slot->req != nullptr) {
        return *environments[thread_slot->req->env_index];
    }
    return *environments[0];
}

std::size_t engine::add_environment(
    const std::vector<std::vector<std::pair<std::string, std::string>>>& layers) {
    for (std::size_t i = 1; i < environment_layers.size(); ++i) {
        if (environment_layers[i] == layers) {
            return i;
        }
    }
    if (environments.size() == max_environments) {
        throw std::runtime_error("too many distinct environments (" +
                                 std::to_string(max_environments) +
                                 " made by reloads); restart the server");
    }
    environment_layers.push_back(layers);
    std::vector<const env_snapshot::layer*> all{&server_env};
    for (const auto& layer : layers) {
        all.push_back(&layer);
    }
    environments.push_back(std::make_unique<env_snapshot>(all));
    return environments.size() - 1;
}

void bind_request(slot_context& ctx, request& req) noexcept {
    // An interrupt meant for the previous request must not end this one.
    interrupt_requested[ctx.index].store(interrupt_reason::none, std::memory_order_release);
    // Nor a backtrace: those orders learn that their request ended.
    if (ctx.mailbox->has_orders()) {
        answer_ended_orders(ctx, req.id);
    }
    ctx.req = &req;
    req.slot = ctx.index;
    ctx.finished = false;
    collect_cookies(req, ctx.cookies);

    // SAPI reads these during request start-up; they point into `req`, which outlives it.
    SG(server_context) = &ctx;
    SG(request_info).request_method = req.method.c_str();
    SG(request_info).query_string = req.query.empty() ? nullptr : req.query.data();
    SG(request_info).request_uri = req.uri.data();
    SG(request_info).path_translated = req.script_filename.data();
    SG(request_info).content_type = req.content_type.empty() ? nullptr : req.content_type.c_str();
    SG(request_info).content_length = static_cast<zend_long>(req.content_length);
    SG(sapi_headers).http_response_code = 200;
    if (const header* auth = find_header(req, "authorization")) {
        // Fills SG(request_info).auth_user/auth_password (emalloc'd; sapi_deactivate frees them).
        php_handle_auth_data(auth->value.c_str());
    }
}

void complete_response(slot_context& ctx, bool script_failed) noexcept {
    if (ctx.finished) {
        return;
    }
    if (ctx.response_done != nullptr && *ctx.response_done) {
        (*ctx.response_done)();
    }
    ctx.req->sink->finish(script_failed);
    ctx.finished = true;
}

void unbind_request(slot_context& ctx) noexcept {
    SG(server_context) = nullptr;
    SG(request_info).request_method = nullptr;
    SG(request_info).query_string = nullptr;
    SG(request_info).request_uri = nullptr;
    SG(request_info).path_translated = nullptr;
    SG(request_info).content_type = nullptr;
    ctx.req = nullptr;
    if (ctx.mailbox->has_orders()) {
        answer_ended_orders(ctx, 0);
    }
}

engine::engine(engine_options options) {
    contexts.resize(options.num_slots);
    for (std::size_t i = 0; i < contexts.size(); ++i) {
        contexts[i].index = i;
    }
    server_env = options.env;
    environments.reserve(max_environments);
    environment_layers.emplace_back();
    environments.push_back(
        std::make_unique<env_snapshot>(std::vector<const env_snapshot::layer*>{&server_env}));
    interrupt_requested = std::make_unique<std::atomic<interrupt_reason>[]>(contexts.size());
    mailboxes = std::make_unique<backtrace_mailbox[]>(contexts.size());
    for (std::size_t i = 0; i < contexts.size(); ++i) {
        contexts[i].mailbox = &mailboxes[i];
    }
    watchdog = std::make_unique<execution_watchdog>(
        contexts.size(),
        [](std::size_t index) { request_interrupt(index, interrupt_reason::timeout); },
        watchdog_tick);

    // No SA_RESTART: a blocking call (sleep, a socket read) returns EINTR so the interrupted
    // script reaches its next VM step.
    struct sigaction action {};
    action.sa_handler = on_interrupt_signal;
    sigemptyset(&action.sa_mask);
    sigaction(interrupt_signal, &action, nullptr);
    php_tsrm_startup();
    ZEND_TSRMLS_CACHE_UPDATE();  // the main thread's storage, made by php_tsrm_startup()
    // tsrm_startup() has just cleared the hook and PHP sets none: nothing to chain to.
    tsrm_set_new_thread_begin_handler(on_new_thread);
    sapi_startup(&spindle_sapi_module);

    spindle_sapi_module.startup = startup;
    spindle_sapi_module.ini_defaults = ini_defaults;
    spindle_sapi_module.php_ini_ignore_cwd = 1;
    // --php-ini, else an installed tree's etc/spindle (php_paths.hpp), else PHP's own search
    // (PHPRC, then the compiled-in folder).
    const php_paths& paths = current_php_paths();
    if (options.ini_file) {
        spindle_sapi_module.php_ini_path_override = persistent_copy(*options.ini_file);
    } else if (const auto folder = ini_search_override(paths)) {
        spindle_sapi_module.php_ini_path_override = persistent_copy(*folder);
    }
    spindle_sapi_module.ini_entries = persistent_copy(build_ini_entries(options));
    php_import_environment_variables = import_environment;

    std::optional<ini_scan_dir_scope> scan_dir(std::in_place, paths);
    if (spindle_sapi_module.startup(&spindle_sapi_module) == FAILURE) {
        throw std::runtime_error("PHP failed to start; see the PHP messages above");
    }
    scan_dir.reset();
    // The $_SERVER keys and the filter.default decision; php.ini is loaded now.
    init_server_variables();
    previous_interrupt_function = zend_interrupt_function;
    zend_interrupt_function = on_vm_interrupt;
    if (zend_ini_entry* entry = timeout_entry()) {
        php_on_update_timeout = entry->on_modify;
    }
    if (options.opcache && zend_get_extension("Zend OPcache") == nullptr) {
        spdlog::get("sapi")->warn(
            "OPcache is not loaded: every request compiles its scripts. Check that "
            "{}/opcache.so exists and that your php.ini does not disable it",
            paths.extension_dir);
    }
    // php_init_config() records the php.ini it loaded under this name.
    zval* ini_path = cfg_get_entry("cfg_file_path", sizeof("cfg_file_path") - 1);
    spdlog::get("sapi")->info(
        "PHP {} started (ZTS, SAPI {}), php.ini: {}", PHP_VERSION, spindle_sapi_module.name,
        ini_path != nullptr && Z_TYPE_P(ini_path) == IS_STRING ? Z_STRVAL_P(ini_path) : "(none)");
}

engine::~engine() {
    watchdog.reset();
    php_module_shutdown();
    shutdown_server_variables();
    sapi_shutdown();
    tsrm_shutdown();
    free(spindle_sapi_module.ini_entries);
    spindle_sapi_module.ini_entries = nullptr;
    free(spindle_sapi_module.php_ini_path_override);
    spindle_sapi_module.php_ini_path_override = nullptr;
    environments.clear();
    environment_layers.clear();
}

engine::thread_scope::thread_scope(engine&, std::size_t index) {
    // The thread's whole PHP state (executor, compiler, SAPI globals, Zend MM heap); it stays
    // until the destructor, across every request this thread serves.
    (void)ts_resource(0);
    thread_slot = &contexts[index];
    thread_slot->tsrm_ls = ZEND_TSRMLS_CACHE;
    // Each thread got its own copy of the internal function table in ts_resource().
    install_env_functions();
    install_sleep_functions();
    install_realpath_function();
    install_session_shutdown_function();
    refuse_process_wide_pcntl();
    thread_slot->thread = pthread_self();
    thread_slot->mailbox->open(set_vm_interrupt, &EG(vm_interrupt));
    // Each thread has its own copy of the INI entries (zend_copy_ini_directives).
    zend_ini_entry* entry = timeout_entry();
    if (entry != nullptr && php_on_update_timeout != nullptr &&
        entry->on_modify == php_on_update_timeout) {
        entry->on_modify = on_update_timeout;
    }
}

engine::thread_scope::~thread_scope() {
    // The next thread of this slot starts afresh.
    thread_slot->header_keys.clear();
    thread_slot->classic_env_arrays.clear();
    // No backtrace can be asked of this PHP context any more; those asked are answered.
    try {
        for (backtrace_order& order : thread_slot->mailbox->close()) {
            order.done(std::nullopt);
        }
    } catch (const std::exception& e) {
        spdlog::get("sapi")->error("[slot {}] answering backtrace orders failed: {}",
                                   thread_slot->index, e.what());
    }
    thread_slot = nullptr;
    spindle_delete_execution_timer();
    ts_free_thread();
    ZEND_TSRMLS_CACHE_UPDATE();  // null again: the storage is gone
}

void engine::interrupt(std::size_t index) noexcept {
    request_interrupt(index, interrupt_reason::stop);
}

bool engine::request_backtrace(std::size_t index, backtrace_order order) noexcept {
    if (index >= contexts.size()) {
        return false;
    }
    // The post sets the thread's VM interrupt (set_vm_interrupt, while its PHP context
    // lives): running PHP code takes the backtrace at its next VM step, as PHP's own timer ends
    // a request, and a sleeping script is woken by the post itself. No signal: a database
    // call or any other blocking call the script is in must not fail with EINTR because
    // someone looked at it.
    try {
        return contexts[index].mailbox->post(std::move(order));
    } catch (const std::exception&) {
        return false;
    }
}

void begin_execution_limit(slot_context& ctx) noexcept {
    // The slot's deadline is disarmed here already: every request's end disarms it, and so does
    // the end of a script that died inside one.
    if (EG(timeout_seconds) <= 0) {
        return;
    }
    // PHP's own timer takes no more than this (zend_max_execution_timer_settime).
    const zend_long seconds = std::min<zend_long>(EG(timeout_seconds), 999999999);
    try {
        watchdog->arm(ctx.index, std::chrono::seconds(seconds));
    } catch (const std::exception&) {
        // No watchdog thread could start: PHP's timer keeps the limit instead.
        zend_set_timeout(EG(timeout_seconds), 0);
        ctx.php_timer_armed = true;
    }
}

void end_execution_limit(slot_context& ctx) noexcept {
    watchdog->disarm(ctx.index);
    if (ctx.php_timer_armed) {
        zend_unset_timeout();
        ctx.php_timer_armed = false;
    }
}

memory_use engine::last_request_memory() noexcept {
    return thread_slot->last_memory;
}

const char* engine::php_version() noexcept {
    return PHP_VERSION;
}

std::int64_t engine::memory_limit() const noexcept {
    // The control thread's copy of PHP's globals holds the value php.ini and ini_entries set.
    return static_cast<std::int64_t>(PG(memory_limit));
}

void engine::run_script(request& req, const std::function<void()>& response_done) noexcept {
    slot_context& ctx = *thread_slot;
    bind_request(ctx, req);
    ctx.response_done = &response_done;

    bool failed = false;
    if (php_request_startup() == SUCCESS) {
        // A client that left while the request waited for a thread: the script starts with
        // connection_status() 1, as under php-fpm; it ends at its first output unless it
        // ignores user aborts.
        if (req.sink->is_aborted()) {
            PG(connection_status) = PHP_CONNECTION_ABORTED;
        }
        // The start-up cleared the VM interrupt (init_executor); a backtrace ordered since the
        // slot took this request still needs it.
        if (ctx.mailbox->has_orders()) {
            zend_atomic_bool_store(&EG(vm_interrupt), true);
        }
        spindle_enter_script_directory(req.script_filename.c_str());
        failed = !execute_file(req.script_filename);
        ctx.last_memory = {zend_memory_usage(false), zend_memory_peak_usage(false)};
    } else {
        spdlog::get("sapi")->error("[slot {} req {}] PHP request start-up failed", ctx.index,
                                   req.id);
    }
    leave_session_save_handler();
    php_request_shutdown(nullptr);
    spindle_leave_script_directory();
    // What the request leaves behind: the request's memory is gone, the memory manager's
    // cached chunks are not (max_memory decides on this).
    ctx.last_memory.held = zend_memory_usage(true);

    complete_response(ctx, failed);
    ctx.response_done = nullptr;
    unbind_request(ctx);
    // putenv() lasts one classic request.
    ctx.env_overlay.clear();
}

worker_outcome engine::run_worker(const worker_script& script, worker_hooks& hooks) noexcept {
    slot_context& ctx = *thread_slot;
    worker_outcome outcome;

    // The script boots inside a pseudo-request whose output goes to the log.
    log_sink boot_output(script.name);
    empty_body no_body;
    request boot;
    boot.method = "GET";
    boot.uri = script.script_name;
    boot.document_root = script.document_root;
    boot.script_filename = script.file;
    boot.script_name = script.script_name;
    boot.server_name = "localhost";
    boot.start_time = now_seconds();
    boot.body = &no_body;
    boot.sink = &boot_output;

    ctx.worker = &script;
    ctx.hooks = &hooks;
    ctx.response_done = &hooks.response_done;
    ctx.boot_request = &boot;
    ctx.worker_ready = false;
    ctx.in_worker_request = false;
    bind_request(ctx, boot);

    if (php_request_startup() == SUCCESS) {
        // The boot runs under PHP's own timer, armed by the start-up; the first
        // frankenphp_handle_request() stops it (end_execution_limit).
        ctx.php_timer_armed = true;
        outcome.failed = !execute_file(script.file);
        if (outcome.failed) {
            // The first line only: an uncaught exception's message carries its stack trace,
            // which PHP has already logged in full.
            outcome.error = PG(last_error_message) != nullptr
                                ? std::string(ZSTR_VAL(PG(last_error_message)))
                                : "the script ended with a fatal error";
            outcome.error.resize(std::min(outcome.error.find('\n'), outcome.error.size()));
        }
    } else {
        outcome.failed = true;
        outcome.error = "PHP request start-up failed";
    }
    outcome.reached_handle_request = ctx.worker_ready;
    outcome.exit_status = EG(exit_status);

    // A crash or exit() inside a handler leaves that request open: the shutdown below runs the
    // shutdown functions and destructors and flushes their output into it, then it is finished,
    // as failed (500 while nothing was sent yet) after a fatal error.
    request* open_request = ctx.in_worker_request ? ctx.req : nullptr;
    // Some keys may live in this script's request memory, which the shutdown frees.
    release_kept_server(ctx.kept_server);
    release_kept_server(ctx.retained_server);
    leave_session_save_handler();
    php_request_shutdown(nullptr);
    // Shutdown functions ran under the request's limit; the next boot starts without one.
    watchdog->disarm(ctx.index);
    ctx.php_timer_armed = false;
    if (open_request != nullptr) {
        complete_response(ctx, outcome.failed);
    }
    ctx.response_done = nullptr;
    unbind_request(ctx);
    ctx.worker = nullptr;
    ctx.hooks = nullptr;
    // putenv() lasts across a worker's requests, until its script ends.
    ctx.env_overlay.clear();
    ctx.boot_request = nullptr;
    ctx.in_worker_request = false;
    return outcome;
}

}  // namespace spindle::sapi
