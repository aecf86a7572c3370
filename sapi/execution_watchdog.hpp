#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace spindle::sapi {

/// One deadline per slot, watched by one thread that wakes every `tick`: a deadline that
/// passed is cleared and reported to `on_expired`.
///
/// Why not PHP's own timer for worker requests: each request would arm and disarm the
/// thread's POSIX timer, two timer_settime() calls, which took 2.6 us of the 27 us of server
/// CPU a worker hello request costs on a 2-core VM (perf, bench/RESULTS.md). Here a request
/// arms and disarms its deadline with a clock read and an uncontended lock: no system call.
/// The price is precision: a deadline is seen up to one tick late.
///
/// Threads: arm() and disarm() on the slot's own thread; on_expired on the watchdog thread,
/// with the slot's lock held, so once disarm() returns no report for the ended deadline can
/// come. The watchdog thread starts at the first arm(): a server without workers has none.
class execution_watchdog {
  public:
    using clock = std::chrono::steady_clock;

    execution_watchdog(std::size_t slots, std::function<void(std::size_t)> on_expired,
                       std::chrono::milliseconds tick);
    /// Stops and joins the watchdog thread, if it started.
    ~execution_watchdog();
    execution_watchdog(const execution_watchdog&) = delete;
    execution_watchdog& operator=(const execution_watchdog&) = delete;

    /// Slot `slot` must be done within `limit` from now; replaces its previous deadline.
    void arm(std::size_t slot, std::chrono::milliseconds limit);
    /// Slot `slot` has no deadline any more.
    void disarm(std::size_t slot) noexcept;

  private:
    /// Padded to its own cache line: each slot thread writes its own entry on every request.
    struct alignas(64) entry {
        std::mutex mutex;
        bool armed = false;          ///< mutex
        clock::time_point deadline;  ///< mutex
    };

    void run();

    const std::size_t slots_;
    std::unique_ptr<entry[]> entries_;
    const std::function<void(std::size_t)> on_expired_;
    const std::chrono::milliseconds tick_;

    std::once_flag started_;
    std::thread thread_;
    std::mutex mutex_;
    std::condition_variable stop_;
    bool stopping_ = false;  ///< mutex_
};

}  // namespace spindle::sapi
