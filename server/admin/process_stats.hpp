#pragma once

#include <cstdint>
#include <optional>

namespace spindle::server {

/// The process-wide figures Prometheus clients conventionally export (process_*), read from
/// getrusage(2), getrlimit(2) and /proc. A figure that cannot be read is left out.
struct process_sample {
    std::optional<double> cpu_seconds;  ///< user + system CPU time
    std::optional<std::uint64_t> resident_bytes;
    std::optional<std::uint64_t> virtual_bytes;
    std::optional<std::uint64_t> open_fds;
    std::optional<std::uint64_t> max_fds;      ///< the soft RLIMIT_NOFILE
    std::optional<double> start_time_seconds;  ///< since the Unix epoch
};

/// Reads the figures now (any thread; a few small reads of /proc).
process_sample read_process_sample();

}  // namespace spindle::server
