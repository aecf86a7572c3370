// The per-request part of worker mode: what php_request_startup()/php_request_shutdown() do
// for one request, done inside a script that stays running. Modelled on FrankenPHP's
// frankenphp_worker_request_startup/shutdown. Everything here runs on the slot thread.

#include "sapi/worker_request.hpp"

#include <utility>

#include <spdlog/spdlog.h>

#include "sapi/php.hpp"
#include "sapi/server_variables.hpp"

namespace spindle::sapi {
namespace {

// Extensions whose per-request state must be reset between worker requests: session (closes
// and writes the session, forgets its id) and filter (caches the request's input arrays).
constexpr const char* modules_to_reset[] = {"session", "filter"};

void call_module_hooks(bool startup) {
    for (const char* name : modules_to_reset) {
        auto* module = static_cast<zend_module_entry*>(
            zend_hash_str_find_ptr(&module_registry, name, strlen(name)));
        if (module == nullptr) {
            continue;
        }
        auto hook = startup ? module->request_startup_func : module->request_shutdown_func;
        if (hook != nullptr) {
            hook(module->type, module->module_number);
        }
    }
}

// A save handler the worker registered with session_set_save_handler(), as Symfony's session
// storage does once, when it is built. The session module's request shutdown destroys it but
// leaves session.save_handler at "user", so the next request's session_start() would fail
// ("User session functions are not defined"). The handler belongs to the resident script, as
// the objects it holds do, and is kept from one request to the next (as FrankenPHP keeps it).
struct session_save_handler {
    zval names[PS_NUM_APIS];
    zend_string* class_name;
};

void keep_save_handler(session_save_handler& kept) {
    for (int i = 0; i < PS_NUM_APIS; ++i) {
        ZVAL_COPY(&kept.names[i], &PS(mod_user_names).names[i]);
    }
    kept.class_name =
        PS(mod_user_class_name) != nullptr ? zend_string_copy(PS(mod_user_class_name)) : nullptr;
}

// After the session module's request shutdown, which left every name undefined.
void restore_save_handler(session_save_handler& kept) {
    for (int i = 0; i < PS_NUM_APIS; ++i) {
        zval* name = &PS(mod_user_names).names[i];
        if (Z_ISUNDEF_P(name)) {
            ZVAL_COPY_VALUE(name, &kept.names[i]);
        } else {
            zval_ptr_dtor(&kept.names[i]);
        }
    }
    if (PS(mod_user_class_name) == nullptr) {
        PS(mod_user_class_name) = kept.class_name;
    } else if (kept.class_name != nullptr) {
        zend_string_release(kept.class_name);
    }
}

// True when `kept` can become this request's $_SERVER: nothing but this thread holds it (a
// write by the application separated it, so it is exactly what Spindle built) and its
// environment part is the request's.
bool is_reusable(const kept_server_array& kept, const request& req) {
    return kept.array != nullptr && GC_REFCOUNT(kept.array) == 1 && kept.env == req.env_index;
}

// $_SERVER for a worker request. An array of the thread's earlier requests is reused when
// nothing else holds it: its request entries become the new request's
// (reuse_server_variables), and the environment part, which can be thousands of entries, is
// not copied again. Otherwise PHP builds a fresh one from a copy of the environment.
//
// Two arrays are kept, so that an application that holds on to its request's $_SERVER until
// the next request replaces it (a Request object in a variable of the worker loop, a
// container's "request" entry) does not make every request build a new copy: the held one is
// set aside, and by the request after it is free again. With 1,000 environment variables that
// copy and its release were 60,000 of the 94,000 instructions of such a request
// (bench/RESULTS.md, "Environment size").
void build_server_array(slot_context& ctx) {
    zval* server = &PG(http_globals)[TRACK_VARS_SERVER];
    const request& req = *ctx.req;
    const bool may_reuse =
        !PG(register_argc_argv) && Z_TYPE_P(server) == IS_UNDEF && variables_order_has_server();
    if (may_reuse && !is_reusable(ctx.kept_server, req) && is_reusable(ctx.retained_server, req)) {
        std::swap(ctx.kept_server, ctx.retained_server);
    }
    kept_server_array& kept = ctx.kept_server;
    if (may_reuse && is_reusable(kept, req)) {
        // The input filter registers into PG(http_globals)[TRACK_VARS_SERVER]: set it first.
        ZVAL_ARR(server, kept.array);
        reuse_server_variables(ctx, kept.array, kept.keys);
        GC_ADDREF(kept.array);  // PG(http_globals) and ctx.kept_server
        zval global;
        ZVAL_ARR(&global, kept.array);
        GC_ADDREF(kept.array);  // the global scope's $_SERVER
        zend_hash_update(&EG(symbol_table), ZSTR_KNOWN(ZEND_STR_AUTOGLOBAL_SERVER), &global);
        // Built: a later compile referencing $_SERVER must not rebuild it.
        auto* auto_global = static_cast<zend_auto_global*>(
            zend_hash_find_ptr(CG(auto_globals), ZSTR_KNOWN(ZEND_STR_AUTOGLOBAL_SERVER)));
        if (auto_global != nullptr) {
            auto_global->armed = false;
        }
        return;
    }
    if (kept.array != nullptr && GC_REFCOUNT(kept.array) > 1 && kept.env == req.env_index) {
        // The application still holds it: set aside, in place of the older one.
        release_kept_server(ctx.retained_server);
        std::swap(ctx.kept_server, ctx.retained_server);
    } else {
        release_kept_server(kept);
    }
    zend_is_auto_global(ZSTR_KNOWN(ZEND_STR_AUTOGLOBAL_SERVER));
    if (Z_TYPE_P(server) == IS_ARRAY) {
        note_engine_server_variables(kept.keys);
        kept.array = Z_ARR_P(server);
        kept.env = req.env_index;
        GC_ADDREF(kept.array);
    }
}

// php_hash_environment() for a worker request, except that $_ENV is left alone. It is built
// once per run of the script (the environment does not change), and what the script put in
// it at boot must stay: re-arming it would make the next file compiled that reads $_ENV
// rebuild it from the environment (auto_globals_jit, php_auto_globals_create_env()) and the
// script's own entries would be gone for that request and every later one. FrankenPHP skips
// $_ENV the same way (frankenphp_reset_super_globals).
void activate_request_globals() {
    zval* entry = nullptr;
    ZEND_HASH_MAP_FOREACH_VAL(CG(auto_globals), entry) {
        auto* auto_global = static_cast<zend_auto_global*>(Z_PTR_P(entry));
        if (zend_string_equals(auto_global->name, ZSTR_KNOWN(ZEND_STR_AUTOGLOBAL_ENV))) {
            continue;
        }
        // As zend_activate_auto_globals() (Zend/zend_compile.c).
        if (auto_global->jit) {
            auto_global->armed = 1;
        } else if (auto_global->auto_global_callback != nullptr) {
            auto_global->armed = auto_global->auto_global_callback(auto_global->name);
        } else {
            auto_global->armed = 0;
        }
    }
    ZEND_HASH_FOREACH_END();
    if (PG(register_argc_argv)) {
        php_build_argv(SG(request_info).query_string, &PG(http_globals)[TRACK_VARS_SERVER]);
    }
}

// Request start-up without compiling or re-activating the engine (php_request_startup's
// request-scoped half). False if PHP bailed out while doing it.
bool start_request(slot_context& ctx) noexcept {
    volatile bool ok = true;
    zend_try {
        php_output_activate();
        PG(header_is_being_sent) = 0;
        // A client that left while the request waited for a thread: aborted from the start,
        // as under FrankenPHP and php-fpm (connection_status() is 1).
        PG(connection_status) =
            ctx.req->sink->is_aborted() ? PHP_CONNECTION_ABORTED : PHP_CONNECTION_NORMAL;
        // A worker must survive its clients leaving mid-response.
        PG(ignore_user_abort) = 1;
        sapi_activate();
        begin_execution_limit(ctx);
        if (PG(expose_php)) {
            sapi_add_header(SAPI_PHP_VERSION_HEADER, sizeof(SAPI_PHP_VERSION_HEADER) - 1, 1);
        }
        if (PG(output_handler) && PG(output_handler)[0]) {
            zval handler;
            ZVAL_STRING(&handler, PG(output_handler));
            php_output_start_user(&handler, 0, PHP_OUTPUT_HANDLER_STDFLAGS);
            zval_ptr_dtor(&handler);
        } else if (PG(output_buffering)) {
            php_output_start_user(nullptr, PG(output_buffering) > 1 ? PG(output_buffering) : 0,
                                  PHP_OUTPUT_HANDLER_STDFLAGS);
        } else if (PG(implicit_flush)) {
            php_output_set_implicit_flush(1);
        }
        // The previous request's superglobals, released or every request leaks its $_GET,
        // $_POST, $_COOKIE, $_FILES... (php_hash_environment() would forget them).
        for (int track = 0; track < NUM_TRACK_VARS; ++track) {
            if (track != TRACK_VARS_ENV) {
                zval_ptr_dtor(&PG(http_globals)[track]);
                ZVAL_UNDEF(&PG(http_globals)[track]);
            }
        }
        // The global scope's $_SERVER too, so that the kept array may be left with one owner.
        zend_hash_del(&EG(symbol_table), ZSTR_KNOWN(ZEND_STR_AUTOGLOBAL_SERVER));
        activate_request_globals();
        // $_SERVER and $_REQUEST are just-in-time globals, built when a script is compiled;
        // the handler is long compiled, so build them now.
        build_server_array(ctx);
        zend_is_auto_global(ZSTR_KNOWN(ZEND_STR_AUTOGLOBAL_REQUEST));
        call_module_hooks(true);
    }
    zend_catch {
        ok = false;
    }
    zend_end_try();
    return ok;
}

// Writes and closes the request's session before the session module's request shutdown
// does, so that a bailout inside the save handler (the request's max_execution_time running
// out in write(), a fatal error) is seen here. Left to that shutdown, the bailout would leave
// PS(in_save_handler) set and the shutdown would refuse to call the handler's close(): the
// session's lock stays held for the life of the thread (see leave_session_save_handler() in
// engine.cpp). True when the handler bailed out.
bool close_session() noexcept {
    if (PS(session_status) != php_session_active) {
        return false;
    }
    volatile bool bailed_out = false;
    zend_try {
        php_session_flush(1);
    }
    zend_catch {
        bailed_out = true;
        // Not written, and it must not be written again by the module's shutdown.
        PS(session_status) = php_session_none;
    }
    zend_end_try();
    PS(in_save_handler) = 0;
    return bailed_out;
}

// Completes the response and resets what belongs to the request. True when a session save
// handler bailed out meanwhile: the PHP stack it ran on was abandoned by the longjmp, so the
// script must not run on (the caller bails out once the response is complete).
bool end_request(slot_context& ctx) noexcept {
    zend_try {
        php_output_end_all();
    }
    zend_end_try();
    const bool session_failed = close_session();
    session_save_handler save_handler;
    keep_save_handler(save_handler);
    zend_try {
        call_module_hooks(false);
    }
    zend_end_try();
    restore_save_handler(save_handler);
    // Sends the head if nothing did yet, drops output handlers.
    zend_try {
        php_output_deactivate();
    }
    zend_end_try();
    complete_response(ctx, false);
    // $_SESSION outlives the session module's request state in the global symbol table:
    // without this the next request would see this one's session data.
    zend_hash_str_del(&EG(symbol_table), "_SESSION", sizeof("_SESSION") - 1);
    // php://input's buffer is a stream resource; resources live as long as the script.
    if (SG(request_info).request_body != nullptr) {
        php_stream_close(SG(request_info).request_body);
        SG(request_info).request_body = nullptr;
    }
    zend_try {
        // Frees headers, POST data, auth strings, and removes uploaded temp files.
        sapi_deactivate();
    }
    zend_end_try();
    zend_set_memory_limit(PG(memory_limit));
    // The script now waits for the next request: no execution limit while it waits.
    end_execution_limit(ctx);
    // What stays is the resident script's own memory; the next request's peak starts there.
    ctx.last_memory = {zend_memory_usage(false), zend_memory_peak_usage(false),
                       zend_memory_usage(true)};
    zend_memory_reset_peak_usage();
    return session_failed;
}

}  // namespace

bool handle_worker_request(slot_context& ctx, zend_fcall_info* handler,
                           zend_fcall_info_cache* handler_cache) noexcept {
    if (!ctx.worker_ready) {
        // The first call ends the boot pseudo-request the script started in.
        ctx.worker_ready = true;
        if (end_request(ctx)) {
            zend_bailout();
        }
    }
    ctx.req = ctx.boot_request;
    request* next = ctx.hooks->next_request();
    if (next == nullptr) {
        // Stopping: the script runs on to its end inside the boot pseudo-request again, so its
        // remaining output goes to the log and the final request shutdown is balanced.
        bind_request(ctx, *ctx.boot_request);
        start_request(ctx);
        return false;
    }
    bind_request(ctx, *next);
    ctx.in_worker_request = true;
    if (start_request(ctx)) {
        zval result;
        ZVAL_UNDEF(&result);
        handler->retval = &result;
        if (zend_call_function(handler, handler_cache) == SUCCESS) {
            zval_ptr_dtor(&result);
        }
        handler->retval = nullptr;
        if (EG(exception) != nullptr) {
            // An uncaught exception ends the worker as it would end a classic script: logged as
            // a fatal error, 500 to the client, and the script restarts. exit() unwinds as a
            // special exception that zend_exception_error() just releases. Either way the
            // request stays open while the script's request shutdown (engine::run_worker)
            // runs its shutdown functions and destructors, so what they print and the status
            // they set reach this response, as for a classic script ending in exit(): Symfony's
            // dd() prints its dump from a destructor after exit(1). zend_exception_error() adds
            // E_DONT_BAIL in PHP 8, so bail out explicitly (FrankenPHP does the same).
            zend_exception_error(EG(exception), E_ERROR);
            zend_bailout();
        }
    } else {
        spdlog::get("sapi")->error("[slot {} req {}] worker request start-up failed", ctx.index,
                                   next->id);
    }
    if (end_request(ctx)) {
        zend_bailout();
    }
    ctx.in_worker_request = false;
    bind_request(ctx, *ctx.boot_request);
    return true;
}

}  // namespace spindle::sapi
