#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <optional>

namespace spindle::worker {

/// A request must have waited this long for a thread before the scaler adds one
/// (FrankenPHP's minStallTime): a burst that the threads absorb at once starts nothing.
inline constexpr std::chrono::milliseconds min_stall{5};

/// The window over which CPU use is measured before each growth step.
inline constexpr std::chrono::milliseconds cpu_window{100};

/// No thread is added while the process used this fraction of its CPUs or more over the last
/// window (FrankenPHP's maxCpuUsageForScaling): requests that wait on I/O leave the CPUs idle,
/// and more threads serve more of them at once; requests that want the CPU only wait longer
/// when more threads share it, each holding its PHP memory meanwhile.
inline constexpr double max_cpu_usage_for_growth = 0.8;

/// Nor while the group's threads spent this fraction of the window or more runnable but
/// waiting for a CPU: the CPUs are oversubscribed, by this process or by others on the same
/// machine (which leave this process a small share, so the first rule alone would add threads
/// that only queue for the CPU). A thread that sleeps on I/O waits for a CPU only for the
/// moment after it wakes.
inline constexpr double max_cpu_wait_for_growth = 0.25;

/// What the scaler knows of one group whose oldest queued request has waited min_stall.
struct growth_inputs {
    std::size_t queued = 0;       ///< requests waiting in its queue
    std::size_t booting = 0;      ///< threads added to it that are still booting
    std::size_t threads = 0;      ///< its live threads, booting ones included
    std::size_t max_threads = 0;  ///< its cap
    std::size_t pool_room = 0;    ///< threads the whole pool may still add (global cap)
    double cpu_usage = 0;         ///< the process's CPU use over the last window, of its CPUs
    double cpu_wait = 0;          ///< of its threads' time: runnable, waiting for a CPU
};

/// How many threads to add to the group now: none when the CPU is the bottleneck; else one per
/// request that no booting thread will take, at most doubling the group per window (a CPU
/// that turns busy is seen before the group overshoots), within both caps.
std::size_t threads_to_add(const growth_inputs& in) noexcept;

/// The process's CPU time over wall-clock windows (CLOCK_PROCESS_CPUTIME_ID: every thread of
/// the process, so the I/O threads' work counts too). Scaler thread only.
class cpu_meter {
  public:
    explicit cpu_meter(std::size_t cpus) noexcept : cpus_(cpus == 0 ? 1 : cpus) {}
    /// Starts a window now.
    void restart() noexcept;
    /// Whether the window is at least `window` old.
    bool elapsed(std::chrono::nanoseconds window) const noexcept;
    /// The fraction of the CPUs used since the window started; a new window starts.
    double usage() noexcept;

  private:
    std::size_t cpus_;
    std::chrono::steady_clock::time_point wall_start_;
    std::chrono::nanoseconds cpu_start_{0};
};

/// Time thread `tid` of this process has spent runnable but waiting on a run queue
/// (/proc/self/task/TID/schedstat); nullopt when the kernel does not say (no schedstat, or the
/// thread ended).
std::optional<std::chrono::nanoseconds> cpu_waited(pid_t tid) noexcept;

}  // namespace spindle::worker
