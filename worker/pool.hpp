#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "worker/slot.hpp"
#include "worker/slot_runtime.hpp"

namespace spindle::worker {

/// How a request submission ended.
enum class submit_result {
    assigned,  ///< an idle slot took it at once
    queued,    ///< every slot is busy; it waits in the FIFO (withdraw() it on its deadline)
    rejected,  ///< the queue is full or the pool is stopping: answer 503 now
};

/// Sizing of the pool; read once at construction.
struct pool_options {
    std::size_t num_threads = 2;
    std::size_t max_queue = 4096;
};

/// Counters for metrics and the admin view; a snapshot, taken under the lock.
struct pool_stats {
    std::size_t total = 0;
    std::size_t busy = 0;
    std::size_t queued = 0;
};

/// The fixed array of PHP slot threads and the dispatch of requests to them.
///
/// Dispatch takes the most recently idle slot first (its caches are warm), else appends to a
/// bounded FIFO; a slot that finishes takes the oldest queued request before going idle. One
/// mutex guards the idle stack, the queue and the slots' assignments; it is held only for a few
/// pointer moves.
///
/// Threads: submit() and withdraw() run on I/O threads; start(), stop() and the destructor on
/// the control thread; each slot's loop on its own PHP thread.
class pool {
  public:
    /// `runtime` runs on every slot thread; it must outlive the pool.
    pool(slot_runtime& runtime, pool_options options);
    ~pool();
    pool(const pool&) = delete;
    pool& operator=(const pool&) = delete;

    /// Starts every slot thread and waits until each asked for its first request (control
    /// thread).
    void start();

    /// Refuses new work, lets queued and running requests finish, joins every thread
    /// (control thread). Idempotent.
    void stop();

    /// Hands a request to a slot or the queue. On `queued`, `*ticket` identifies the entry for
    /// withdraw().
    submit_result submit(job request, std::uint64_t* ticket);

    /// Removes a queued request whose deadline passed. True if it was still queued (the caller
    /// answers it); false if a slot already took it.
    bool withdraw(std::uint64_t ticket);

    /// A consistent snapshot of the counters (any thread).
    pool_stats stats() const;

    /// The slots, for read-only observation (state, requests served).
    const std::vector<std::unique_ptr<slot>>& slots() const noexcept { return slots_; }

  private:
    struct queued_job {
        std::uint64_t ticket;
        job request;
    };

    /// The loop of slot thread `index` (PHP thread).
    void run_slot(std::size_t index);
    /// Called by the runtime on slot thread `s` when it is ready for a request: takes the oldest
    /// queued one, or goes idle and blocks until one is assigned; null means stop.
    job next_job(slot& s);

    slot_runtime& runtime_;
    const pool_options options_;
    std::vector<std::unique_ptr<slot>> slots_;

    mutable std::mutex mutex_;
    std::vector<std::size_t> idle_;  ///< mutex_: stack of idle slot indexes, hottest on top
    std::deque<queued_job> queue_;   ///< mutex_: FIFO of waiting requests
    std::uint64_t next_ticket_ = 1;  ///< mutex_
    std::size_t busy_ = 0;           ///< mutex_
    bool stopping_ = false;          ///< mutex_
    std::size_t booted_ = 0;         ///< mutex_: slots that finished booting
    std::condition_variable booted_cv_;
};

}  // namespace spindle::worker
