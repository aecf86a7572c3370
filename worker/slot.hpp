#pragma once

#include <sys/types.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "sapi/memory_use.hpp"
#include "sapi/request.hpp"
#include "worker/duration_histogram.hpp"
#include "worker/slot_state.hpp"
#include "worker/wake_signal.hpp"

namespace spindle::worker {

/// A request on its way to a PHP thread. The front end owns what the pointer aliases (body,
/// sink); the shared ownership keeps it alive until the PHP thread lets go.
using job = std::shared_ptr<sapi::request>;

/// Why a slot's script starts again, for the crash and restart counts (FrankenPHP's
/// frankenphp_worker_crashes and frankenphp_worker_restarts).
enum class restart_reason {
    boot_failure,  ///< the script died before reaching frankenphp_handle_request()
    crash,         ///< after serving requests: a fatal error, or exit() with a status above 0
    ended,         ///< after serving requests: it ended by itself with exit status 0
    recycled,      ///< it served max_requests
};

/// Lower-case name, for logs.
std::string_view to_string(restart_reason reason) noexcept;

/// Whether FrankenPHP counts `reason` as a crash (unexpected) rather than a restart: a script
/// that ends by itself with status 0 is restarted as planned (threadworker.go,
/// tearDownWorkerScript), anything else after its boot is a crash.
constexpr bool is_crash(restart_reason reason) noexcept {
    return reason == restart_reason::boot_failure || reason == restart_reason::crash;
}

/// The request a slot is running, as an observer sees it.
struct running_request {
    std::string method;
    std::string client;    ///< REMOTE_ADDR: the peer, or the client a trusted proxy named
    std::string uri;       ///< the request-target, cut at slot::running_text_capacity bytes
    std::uint64_t id = 0;  ///< the request id of the log lines about it (sapi::request::id)
    std::chrono::nanoseconds elapsed{0};  ///< since the slot thread took the request
};

/// One PHP interpreter thread and its place in the pool. Its index is its identity: the SAPI
/// finds the request it serves through that index alone.
///
/// Fields marked "pool mutex" are read and written only with the owning dispatch group's mutex
/// held; the state is atomic so observers (metrics, admin) can read it without the lock.
class slot {
  public:
    explicit slot(std::size_t index) : index_(index) {}

    /// The slot's index in the pool's array.
    std::size_t index() const noexcept { return index_; }

    /// Current state; safe from any thread.
    slot_state state() const noexcept { return state_.load(std::memory_order_acquire); }

    /// The one way to change the state. Returns false (and changes nothing) when the state
    /// machine does not allow the change. Runs on the slot's own thread, or on a dispatching
    /// thread that holds the pool mutex while the slot is in a stable state (ready).
    bool transition(slot_state to) noexcept;

    // Observations for metrics and the admin view: written by the slot thread alone with
    // relaxed atomics (no lock on the request path), read from any thread.

    /// Requests finished since the thread started.
    std::uint64_t requests_served() const noexcept {
        return requests_served_.load(std::memory_order_relaxed);
    }
    /// Times its script started and asked for a first request (classic: once).
    std::uint64_t boots() const noexcept { return boots_.load(std::memory_order_relaxed); }
    /// Times its script started again after is_crash() reasons.
    std::uint64_t crashes() const noexcept { return crashes_.load(std::memory_order_relaxed); }
    /// Times its script started again on purpose (ended with status 0, recycled). Counts are
    /// the slot's whole life: a slot lent to a new worker generation keeps them.
    std::uint64_t restarts() const noexcept { return restarts_.load(std::memory_order_relaxed); }
    /// How long its requests took, from taking the request to asking for the next one.
    histogram_counts durations() const noexcept { return durations_.read(); }

    /// Zend memory in use as its last request ended, that request's peak and the heap the
    /// thread held then; zero before the first.
    sapi::memory_use memory() const noexcept {
        return {memory_in_use_.load(std::memory_order_relaxed),
                memory_peak_.load(std::memory_order_relaxed),
                memory_held_.load(std::memory_order_relaxed)};
    }

    /// The kernel's id of its thread (for /proc/self/task/TID); 0 before the thread runs.
    pid_t thread_id() const noexcept { return tid_.load(std::memory_order_relaxed); }

    /// The request it runs now; nullopt between requests (and in the moment between a request
    /// being assigned and the slot thread taking it). Any thread; never blocks the slot.
    std::optional<running_request> running() const;

    /// Bytes of method + client + URI kept for running(); longer URIs are cut.
    static constexpr std::size_t running_text_capacity = 256;

    /// What running() reads, in fixed buffers: the views point into `text`.
    struct running_copy {
        std::array<char, running_text_capacity> text{};
        std::string_view method;
        std::string_view client;
        std::string_view uri;
        std::uint64_t id = 0;
        std::int64_t since = 0;  ///< steady_clock nanoseconds when the slot thread took it
    };

    /// running() without allocating or blocking, for a reader that may do neither: the crash
    /// report reads every slot from a signal handler. True when it copied a running request
    /// into `out`; false between requests, or when the slot kept changing requests while it
    /// read. Async-signal-safe; any thread.
    bool copy_running(running_copy& out) const noexcept;

  private:
    friend class pool;

    /// Slot thread: a request was handed to it.
    void begin_request(const sapi::request& request) noexcept;
    /// Slot thread: the request begun last is over (no-op when none is running).
    void end_request() noexcept;
    /// Slot thread: publishes `text` (method + '\0' + client + '\0' + URI), the request's `id`
    /// and `since` for running().
    void publish_running(std::string_view text, std::uint64_t id, std::int64_t since) noexcept;
    /// Slot thread: counts a script start-up or restart.
    void count_boot() noexcept { boots_.fetch_add(1, std::memory_order_relaxed); }
    void count_restart(restart_reason reason) noexcept;
    /// Slot thread: publishes memory().
    void record_memory(sapi::memory_use memory) noexcept {
        memory_in_use_.store(memory.in_use, std::memory_order_relaxed);
        memory_peak_.store(memory.peak, std::memory_order_relaxed);
        memory_held_.store(memory.held, std::memory_order_relaxed);
    }

    static constexpr std::size_t running_text_words = running_text_capacity / 8;

    const std::size_t index_;
    std::atomic<slot_state> state_{slot_state::reserved};
    std::atomic<std::uint64_t> requests_served_{0};
    std::atomic<std::uint64_t> boots_{0};
    std::atomic<std::uint64_t> crashes_{0};
    std::atomic<std::uint64_t> restarts_{0};
    std::atomic<std::size_t> memory_in_use_{0};
    std::atomic<std::size_t> memory_peak_{0};
    std::atomic<std::size_t> memory_held_{0};
    duration_histogram durations_;
    // The running request, published through a sequence lock whose data are atomics stored
    // with release and loaded with acquire, so no fence is needed (H. Boehm, "Can seqlocks get
    // along with programming language memory models?", 2012; plain moves on x86): the slot
    // thread never waits, a reader retries while the count is odd or has moved.
    std::atomic<std::uint32_t> running_sequence_{0};
    std::atomic<std::int64_t> running_since_{0};  ///< steady_clock nanoseconds; 0: none
    std::atomic<std::uint32_t> running_length_{0};
    std::atomic<std::uint64_t> running_id_{0};
    std::array<std::atomic<std::uint64_t>, running_text_words> running_text_{};
    std::chrono::steady_clock::time_point request_start_;  ///< slot thread only
    bool in_request_ = false;                              ///< slot thread only
    job assigned_;  ///< pool mutex: the next request for this slot
    /// Posted when assigned_ is set, on stop and on restart; the slot then re-checks under the
    /// pool mutex, so a spare post only costs a re-check.
    wake_signal wakeup_;
    bool has_booted_ = false;  ///< pool mutex: counted for start(): booted once, or settled
    /// pool mutex: when it last went on its group's idle stack (the scaler ends threads idle
    /// for max_idle_time).
    std::chrono::steady_clock::time_point idle_since_;
    std::thread thread_;  ///< owned by the pool's control thread
    /// Set by the slot thread as its last step, read by the control thread to join only
    /// threads that have ended (pool::stop_within).
    std::atomic<bool> thread_ended_{false};
    std::atomic<pid_t> tid_{0};  ///< written by the slot thread as it starts
};

}  // namespace spindle::worker
