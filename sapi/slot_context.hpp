#pragma once

#include <pthread.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sapi/env_arrays.hpp"
#include "sapi/memory_use.hpp"
#include "sapi/request.hpp"
#include "sapi/server_keys.hpp"
#include "sapi/worker_script.hpp"

struct _zend_array;
struct _zend_string;

namespace spindle::sapi {

class backtrace_mailbox;

/// A worker's $_SERVER array kept from one request to the next (worker_request.cpp). Slot
/// thread only.
struct kept_server_array {
    _zend_array* array = nullptr;  ///< holds one reference; null when there is none
    /// The environment (request::env_index) its environment part came from: a worker serving
    /// several sites reuses it only for requests of the same environment.
    std::size_t env = 0;
    /// Keys its request added, in order, each holding a reference (see release_server_keys).
    std::vector<_zend_string*> keys;
};

/// What a SAPI callback knows about the request its slot thread serves. One per slot, in an
/// array sized at engine start; SG(server_context) points at the slot's entry for the duration
/// of a request, so every callback reaches its request in one load, without a lookup or lock.
/// Touched only by the slot's own thread.
struct slot_context {
    std::size_t index = 0;    ///< the slot's index
    void* tsrm_ls = nullptr;  ///< the thread's TSRM storage, for interrupt() from other threads
    pthread_t thread{};       ///< the slot thread, for interrupt()
    /// Backtrace orders for this slot (engine::request_backtrace); set once by the engine's
    /// constructor. The mailbox itself is safe from any thread.
    backtrace_mailbox* mailbox = nullptr;
    request* req = nullptr;  ///< the request being served; null between requests
    bool finished = false;   ///< the response was completed (finish_request or end)
    /// Called just before a response is completed (engine::run_script, worker_hooks); null
    /// when nothing needs to know.
    const std::function<void()>* response_done = nullptr;
    std::string cookies;        ///< Cookie header values joined with "; " (read_cookies)
    std::string status_reason;  ///< scratch for the reason phrase of a custom status line
    memory_use last_memory;     ///< Zend memory as the last request ended (admin /threads)

    // Worker mode: set while a resident worker script runs on this slot.
    const worker_script* worker = nullptr;  ///< the script and its env; null in classic mode
    worker_hooks* hooks = nullptr;          ///< how the script waits for its next request
    request* boot_request = nullptr;        ///< the pseudo-request the script boots in
    bool worker_ready = false;              ///< the script reached frankenphp_handle_request()
    bool in_worker_request = false;         ///< a handler call is running
    /// PHP's own execution timer may be running (the boot, set_time_limit()): the request's end
    /// stops it. A worker request's limit is otherwise kept by the watchdog.
    bool php_timer_armed = false;
    /// The worker's $_SERVER, kept between its requests so the environment part is not
    /// rebuilt each time (worker_request.cpp).
    kept_server_array kept_server;
    /// The $_SERVER of an earlier request that the application still held when the next one
    /// started (a framework's Request object lives until the next request replaces it). Kept
    /// aside: by the request after, the application has usually let it go and it is reused,
    /// instead of every request building a new copy of the environment.
    kept_server_array retained_server;

    /// Classic requests' $_SERVER and $_ENV start from these (env_arrays.hpp).
    env_arrays classic_env_arrays;

    // $_SERVER building (server_variables.cpp).
    header_key_cache header_keys;                   ///< uncommon header names, converted once
    std::vector<_zend_string*> header_key_scratch;  ///< one request's header keys
    std::string header_join_scratch;                ///< values of a repeated header, joined

    /// putenv() of this thread: name -> value, or nullopt for an unset. Laid over the
    /// environment by getenv(); the process environment is never changed. Cleared after each
    /// classic request and when a worker script ends.
    std::vector<std::pair<std::string, std::optional<std::string>>> env_overlay;
};

/// The calling slot thread's context; null on threads that are not slot threads.
slot_context* current_slot() noexcept;

/// Points the SAPI globals (SG) and the context at `req` before its request start-up; the
/// strings stay owned by `req`. Slot thread.
void bind_request(slot_context& ctx, request& req) noexcept;

/// Clears what bind_request() set, after the request's shutdown. Slot thread.
void unbind_request(slot_context& ctx) noexcept;

/// Completes the response of the request the slot serves, once: tells response_done, then
/// the sink. `script_failed` as output_sink::finish. Slot thread.
void complete_response(slot_context& ctx, bool script_failed) noexcept;

/// Serves the backtrace orders waiting in the slot's mailbox: an order for the request the
/// slot runs gets its backtrace, taken now, any other learns that its request ended. Slot
/// thread, where PHP may run (the VM interrupt, an internal function such as sleep()).
void serve_backtrace_orders(slot_context& ctx) noexcept;

/// Whether the slot's request has been told to end (a stop or restart past its grace period,
/// max_execution_time): it does at its next VM step. Slot thread.
bool request_must_end(const slot_context& ctx) noexcept;

/// A worker request starts: it must end within max_execution_time (EG(timeout_seconds)) from
/// now, a deadline kept by the engine's watchdog rather than PHP's timer. Slot thread.
void begin_execution_limit(slot_context& ctx) noexcept;

/// The worker request ended: no limit while the script waits for the next one, PHP's timer
/// stopped if set_time_limit() had started it. Slot thread.
void end_execution_limit(slot_context& ctx) noexcept;

}  // namespace spindle::sapi
