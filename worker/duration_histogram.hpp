#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace spindle::worker {

/// Upper bounds, in seconds, of every request-duration histogram Spindle exports (Prometheus
/// `le` labels). Prometheus' default buckets, with three more below 5 ms: a worker-mode request
/// often takes less than a millisecond.
inline constexpr std::array<double, 14> duration_bounds{
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

/// A histogram read at one moment: per-bucket counts (not cumulative; the last bucket is above
/// every bound), and the sum of the durations.
struct histogram_counts {
    std::array<std::uint64_t, duration_bounds.size() + 1> buckets{};
    std::uint64_t sum_nanoseconds = 0;

    /// Observations in all.
    std::uint64_t count() const noexcept;
    /// The sum in seconds.
    double sum_seconds() const noexcept { return static_cast<double>(sum_nanoseconds) / 1e9; }
    histogram_counts& operator+=(const histogram_counts& other) noexcept;
};

/// Durations counted into duration_bounds without a lock: record() is two relaxed atomic
/// additions, safe from any number of threads; read() from any thread. A reader may see one
/// observation's bucket before its sum; Prometheus tolerates that skew.
class duration_histogram {
  public:
    /// Counts one duration (any thread).
    void record(std::chrono::nanoseconds duration) noexcept;

    /// The counts so far (any thread).
    histogram_counts read() const noexcept;

  private:
    std::array<std::atomic<std::uint64_t>, duration_bounds.size() + 1> buckets_{};
    std::atomic<std::uint64_t> sum_nanoseconds_{0};
};

}  // namespace spindle::worker
