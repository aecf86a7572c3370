#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace spindle::worker {

class pool;

/// Which running requests have outlasted the slow log's threshold and were not reported yet:
/// each request at most once (php-fpm's request_slowlog_timeout logs a request once). Watch
/// thread only.
class slow_request_tracker {
  public:
    slow_request_tracker(std::size_t slots, std::chrono::nanoseconds threshold)
        : reported_(slots, 0), threshold_(threshold) {}

    /// Slot `slot` runs request `id`, taken at `since` (steady_clock nanoseconds); true when it
    /// is due now (`now`, the same clock) and was not reported before, and marks it reported.
    bool is_due(std::size_t slot, std::uint64_t id, std::int64_t since, std::int64_t now) noexcept;

  private:
    std::vector<std::uint64_t> reported_;  ///< per slot: the last request id reported
    const std::chrono::nanoseconds threshold_;
};

/// The slow log's clock (`slowlog_timeout`): one thread that looks at every slot's running
/// request a few times per threshold and asks the PHP thread of each request past it for its
/// backtrace (pool::request_backtrace), which that thread logs itself (sapi/slow_log.hpp).
///
/// Why a thread that polls the slots' published running requests (slot::copy_running, a
/// sequence lock the slot thread writes anyway) rather than a deadline armed per request: a
/// request pays nothing for it, not a clock read nor a store. The price is precision: a line
/// comes up to one tick (a tenth of the threshold, within [10 ms, 250 ms]) late.
///
/// Threads: constructed and destroyed on the control thread; the watch runs on its own.
class slow_request_watch {
  public:
    /// Starts watching `pool`'s slots; `threshold` must be above zero.
    slow_request_watch(pool& watched, std::chrono::milliseconds threshold);
    /// Stops and joins the watch thread.
    ~slow_request_watch();
    slow_request_watch(const slow_request_watch&) = delete;
    slow_request_watch& operator=(const slow_request_watch&) = delete;

    /// How often a threshold is checked: a tenth of it, within [10 ms, 250 ms].
    static std::chrono::milliseconds tick_for(std::chrono::milliseconds threshold) noexcept;

  private:
    void run();

    pool& pool_;
    const std::chrono::milliseconds threshold_;
    const std::chrono::milliseconds tick_;
    std::mutex mutex_;
    std::condition_variable stop_;
    bool stopping_ = false;  ///< mutex_
    std::thread thread_;     ///< last: starts once the members above are set
};

}  // namespace spindle::worker
