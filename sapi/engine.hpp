#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sapi/backtrace.hpp"
#include "sapi/memory_use.hpp"
#include "sapi/request.hpp"
#include "sapi/worker_script.hpp"

namespace spindle::sapi {

/// How PHP is started; read once by the engine's constructor.
struct engine_options {
    /// Number of slot threads; fixes the size of the per-slot context array.
    std::size_t num_slots = 1;
    /// A php.ini to use instead of PHP's search (--php-ini). PHP_INI_SCAN_DIR still applies.
    std::optional<std::string> ini_file;
    /// Settings applied after php.ini, in order (--php-ini-set, php_ini in the Caddyfile).
    std::vector<std::pair<std::string, std::string>> ini_overrides;
    /// The server's `env` entries (--env), laid over the process environment.
    std::vector<std::pair<std::string, std::string>> env;
    /// Loads OPcache (a shared object). Off only where it cannot load: the fuzz target, whose
    /// static ASan runtime refuses opcache.so's dlopen(RTLD_DEEPBIND).
    bool opcache = true;
};

/// The embedded PHP engine: module start-up and shutdown (control thread), the per-thread
/// interpreter context (slot threads) and running one request on a slot thread.
///
/// There is exactly one engine per process (PHP's SAPI state is process-global).
class engine {
  public:
    /// Starts PHP: TSRM, SAPI, php.ini, extensions, OPcache. Throws std::runtime_error with
    /// PHP's reason when start-up fails. Control thread.
    explicit engine(engine_options options);
    /// Shuts PHP down; every slot thread must have ended. Control thread.
    ~engine();
    engine(const engine&) = delete;
    engine& operator=(const engine&) = delete;

    /// Gives the calling thread its PHP context for as long as the object lives and binds the
    /// thread to slot `index`. One per slot thread, created first thing on that thread.
    class thread_scope {
      public:
        thread_scope(engine& owner, std::size_t index);
        ~thread_scope();
        thread_scope(const thread_scope&) = delete;
        thread_scope& operator=(const thread_scope&) = delete;
    };

    /// Runs `req.script_filename` as one classic request on the calling slot thread:
    /// request start-up, execution, shutdown. The response is complete (sink finished) when it
    /// returns; `response_done` runs on this thread just before it is completed, so that what
    /// counts the request has counted it before the client can see the response. Never
    /// throws; PHP errors become a 500 and a log line.
    void run_script(request& req, const std::function<void()>& response_done) noexcept;

    /// Runs a worker script once on the calling slot thread: it boots, then serves the requests
    /// `hooks.next_request` hands it through frankenphp_handle_request() until that returns
    /// null or the script ends or dies. Never throws.
    worker_outcome run_worker(const worker_script& script, worker_hooks& hooks) noexcept;

    /// Builds an environment scripts can see: the process environment, the server's env, then
    /// `layers` in order (a site's env, a worker's env), later entries winning. Returns the
    /// value for request::env_index and worker_script::env_index; 0 is the server's own.
    /// The same layers give the same index. Control (or reload) thread; throws
    /// std::runtime_error past a large cap of distinct environments.
    std::size_t add_environment(
        const std::vector<std::vector<std::pair<std::string, std::string>>>& layers);

    /// Ends the request slot `index` is running, from any thread: its next VM step raises a
    /// fatal error (500, worker restart) and a blocking system call it sits in returns EINTR.
    /// A slot that is between requests is unaffected. For worker restarts and stops that
    /// outlast their grace period.
    void interrupt(std::size_t index) noexcept;

    /// Asks slot `index` for the PHP backtrace of its request `order.request_id`, from any
    /// thread. The slot takes it on its own thread at its next VM step, or at once when the
    /// script sleeps (sleep_functions.hpp), and calls `order.done` there; with nullopt when
    /// that request ended first. A script blocked in other C code (a database call) answers
    /// when the call returns. False, and `done` is never called, when the slot has no PHP
    /// thread or already holds backtrace_mailbox::capacity orders.
    bool request_backtrace(std::size_t index, backtrace_order order) noexcept;

    /// Zend memory of the calling slot thread's last request, taken as it ended: bytes in use
    /// (for a worker, what the resident script keeps plus what the request left) and the
    /// request's peak. Slot thread, after run_script() or inside worker_hooks::next_request.
    static memory_use last_request_memory() noexcept;

    /// The PHP version string ("8.2.32").
    static const char* php_version() noexcept;

    /// PHP's memory_limit in bytes once php.ini and the settings were read (-1: none). Control
    /// thread, after construction.
    std::int64_t memory_limit() const noexcept;
};

}  // namespace spindle::sapi
