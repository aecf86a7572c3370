#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "worker/slot.hpp"
#include "worker/slot_runtime.hpp"

namespace spindle::worker {

/// How a request submission ended.
enum class submit_result {
    assigned,  ///< an idle slot took it at once
    queued,    ///< every slot of the group is busy; it waits in the FIFO (withdraw() it on its
               ///< deadline)
    rejected,  ///< the queue is full or the pool is stopping: answer 503 now
};

/// One group of slots that serve the same kind of request: the classic scripts, or one worker
/// script. Requests are submitted to a group; its slots share an idle stack and a queue.
struct group_options {
    std::string name;                 ///< "classic" or the worker's name, for logs
    std::size_t num_threads = 1;      ///< slots in the group
    slot_runtime* runtime = nullptr;  ///< what its threads run; outlives the pool
};

/// Sizing of the pool; read once at construction.
struct pool_options {
    std::vector<group_options> groups;
    std::size_t max_queue = 4096;  ///< per group
};

/// Counters for metrics and the admin view; a snapshot, taken under the lock.
struct pool_stats {
    std::size_t total = 0;
    std::size_t busy = 0;
    std::size_t queued = 0;
};

/// The fixed array of PHP slot threads and the dispatch of requests to them.
///
/// Dispatch takes the group's most recently idle slot first (its caches are warm), else
/// appends to the group's bounded FIFO; a slot that finishes takes the oldest queued request
/// before going idle. Each group has one mutex, held only for a few pointer moves.
///
/// Threads: submit() and withdraw() run on I/O threads; start(), stop() and the destructor on
/// the control thread; next_job(), restart() and fail_startup() on slot threads, called by
/// their runtime.
class pool {
  public:
    explicit pool(pool_options options);
    ~pool();
    pool(const pool&) = delete;
    pool& operator=(const pool&) = delete;

    /// Starts every slot thread and waits until each asked for its first request (control
    /// thread). Throws std::runtime_error, after stopping the threads, when a runtime gave up
    /// with fail_startup(). Returns false, after stopping the threads, when cancel_start()
    /// came first.
    bool start();

    /// Makes a start() that is still waiting for slots to boot stop them and return false (a
    /// signal during start-up). No effect once start() has returned. Any thread.
    void cancel_start();

    /// Refuses new work and hands out no more queued requests, which stay unstarted; running
    /// requests go on. Any thread; idempotent. (The drain calls it when its grace period is
    /// over, before the I/O threads that would carry the answers stop.)
    void begin_stop();

    /// Refuses new work, lets running requests finish, joins every thread (control thread).
    /// Idempotent.
    void stop();

    /// The end of a stop whose grace period is over (control thread): refuses new work,
    /// interrupts the requests still running as a timeout would, and waits up to `limit` for
    /// every thread to end, then joins them. Returns false, joining none, when a thread is
    /// still running then: stuck where an interrupt cannot reach (C code that retries on
    /// EINTR, such as proc_close() waiting for its child). The caller must then leave the
    /// process without destroying the pool.
    bool stop_within(std::chrono::milliseconds limit);

    /// Hands a request to a slot of `group` or to its queue. On `queued`, `*ticket`
    /// identifies the entry for withdraw(); on the other outcomes it is 0, which names no
    /// entry.
    submit_result submit(std::size_t group, job request, std::uint64_t* ticket);

    /// Removes a queued request whose deadline passed. True if it was still queued (the caller
    /// answers it); false if a slot already took it.
    bool withdraw(std::size_t group, std::uint64_t ticket);

    /// Removes the queued requests whose client has gone (their sink reports an abort) and
    /// returns how many. A stop calls it while it drains: outside a stop such a request still
    /// runs, marked aborted, as under php-fpm and FrankenPHP (a webhook that ignores user
    /// aborts completes), but once the server is stopping nobody waits for it, and running it
    /// would only hold the stop up. Any thread.
    std::size_t drop_abandoned();

    /// Counters over every group (any thread).
    pool_stats stats() const;

    /// The slots, for read-only observation (state, requests served).
    const std::vector<std::unique_ptr<slot>>& slots() const noexcept { return slots_; }

    /// Slot thread `index`: the response of its request is about to be completed; the request
    /// is counted now, before the client can read the response (and scrape the count).
    void response_done(std::size_t index) noexcept { slots_[index]->end_request(); }

    /// Slot thread `index` reports its PHP memory as its last request ended (admin /threads).
    void record_memory(std::size_t index, sapi::memory_use memory) noexcept {
        slots_[index]->record_memory(memory);
    }

    /// Slot thread `index` is ready for a request: takes the oldest queued one, or goes idle
    /// and blocks until one is assigned. Null means stop.
    job next_job(std::size_t index);

    /// Slot thread `index`'s script ended for `reason` and will start again after `backoff`:
    /// a request it was running is over, the slot leaves the busy count, waits (interrupted by
    /// stop) and boots again. False when the pool is stopping; the thread should then end.
    bool restart(std::size_t index, std::chrono::milliseconds backoff, restart_reason reason);

    /// A runtime cannot boot at all during start-up (a worker failing again and again):
    /// start() stops and throws `reason`. Slot thread.
    void fail_startup(std::string reason);

    /// Slot `index` stops holding start() up without having booted: a worker told never to
    /// give up (max_consecutive_failures -1) keeps retrying in the background while the rest
    /// of the server serves, and its requests wait or get 503. Slot thread.
    void settle_startup(std::size_t index);

    /// Whether start() has returned successfully (any thread).
    bool has_started() const;

    /// Whether slot `index`'s group is stopping; tells a runtime whose next_job() returned
    /// null whether to end or to restart its script (slot thread).
    bool is_stopping(std::size_t index) const;

    /// Asks every slot of `group` to restart its script: running requests finish, idle slots
    /// give up waiting, next_job() returns null to each once, and requests arriving meanwhile
    /// wait in the queue for the rebooted slots (any thread).
    void restart_group(std::size_t group);

    /// Interrupts the slots of `group` still running a request that began before the last
    /// restart_group() (their grace period is over). Returns how many (any thread).
    std::size_t interrupt_stale(std::size_t group);

    /// Number of groups; group 0 runs classic scripts.
    std::size_t group_count() const noexcept;

    /// The group slot `slot_index` belongs to (any thread).
    std::size_t group_of(std::size_t slot_index) const noexcept;

    /// A group's name: "classic" or the worker's (any thread).
    const std::string& group_name(std::size_t group_index) const noexcept;

    /// Requests waiting in a group's queue now (any thread; takes the group's mutex briefly).
    std::size_t queued(std::size_t group_index) const;

  private:
    struct queued_job {
        std::uint64_t ticket;
        job request;
    };

    struct group {
        explicit group(group_options o) : options(std::move(o)) {}
        group_options options;
        mutable std::mutex mutex;
        std::vector<std::size_t> idle;         ///< mutex: idle slot indexes, hottest on top
        std::deque<queued_job> queue;          ///< mutex: waiting requests, oldest first
        std::uint64_t next_ticket = 1;         ///< mutex
        std::size_t busy = 0;                  ///< mutex
        bool stopping = false;                 ///< mutex
        std::uint64_t restart_generation = 0;  ///< mutex: bumped by restart_group()
    };

    void run_slot(std::size_t index);
    /// next_job() under the group's mutex: the dispatch itself.
    job take_job(std::size_t index);
    void mark_booted();

    const std::size_t max_queue_;
    std::vector<std::unique_ptr<group>> groups_;
    std::vector<std::unique_ptr<slot>> slots_;
    std::vector<std::size_t> slot_group_;  ///< slot index -> group index; fixed

    mutable std::mutex boot_mutex_;
    std::condition_variable boot_cv_;
    std::size_t booted_ = 0;        ///< boot_mutex_: slots that asked for a first request
    std::string startup_error_;     ///< boot_mutex_
    bool started_ = false;          ///< boot_mutex_
    bool start_cancelled_ = false;  ///< boot_mutex_
};

}  // namespace spindle::worker
