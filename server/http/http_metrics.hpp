#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "worker/duration_histogram.hpp"

namespace spindle::server {

/// Why a PHP request was answered 503 without running.
enum class rejection {
    queue_full,  ///< every thread busy and the queue full (or the pool stopping)
    timeout,     ///< it waited longer than max_wait_time
};

/// Counters of the public HTTP front end, written by every I/O thread on every response.
/// Sharded by writing thread, each shard on its own cache lines, so threads answering at the
/// same moment do not fight over one line; a read adds the shards up. Relaxed atomics only.
class http_metrics {
  public:
    /// What read() returns.
    struct snapshot {
        std::array<std::uint64_t, 5> responses_by_class{};  ///< [0] = 1xx ... [4] = 5xx
        worker::histogram_counts durations;
        std::array<std::uint64_t, 2> rejections{};      ///< indexed by rejection
        std::array<std::uint64_t, 2> tls_handshakes{};  ///< [0] completed, [1] failed
        std::uint64_t slow_clients = 0;                 ///< closed below min_write_rate
    };

    /// A response was completely written: its final status and how long since the request's
    /// header arrived (I/O thread).
    void record_response(int status, std::chrono::nanoseconds duration) noexcept;

    /// A PHP request got 503 without running (I/O thread).
    void record_rejection(rejection why) noexcept;

    /// A TLS handshake completed or failed (I/O thread). Failures are counted rather than
    /// logged: scanners and broken clients cause them all day.
    void record_tls_handshake(bool completed) noexcept;

    /// A client took a response slower than min_write_rate and was closed (I/O thread).
    void record_slow_client() noexcept;

    /// The totals now (any thread).
    snapshot read() const noexcept;

  private:
    static constexpr std::size_t shard_count = 16;

    struct alignas(64) shard {
        std::array<std::atomic<std::uint64_t>, 5> responses_by_class{};
        std::array<std::atomic<std::uint64_t>, 2> rejections{};
        std::array<std::atomic<std::uint64_t>, 2> tls_handshakes{};
        std::atomic<std::uint64_t> slow_clients{0};
        worker::duration_histogram durations;
    };

    shard& local() noexcept;

    std::array<shard, shard_count> shards_;
};

}  // namespace spindle::server
