#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace spindle::server {

/// The CPU and memory limits of the cgroup the process runs in (a container, a systemd unit
/// with CPUQuota= or MemoryMax=), so that defaults follow what the process may use rather than
/// the machine's size: a pod limited to 2 CPUs on a 32-core node gets 4 PHP threads, not 64.
struct cgroup_limits {
    /// CPUs the quota allows (quota / period, e.g. 1.5); none without a quota.
    std::optional<double> cpus;
    /// Bytes of memory the cgroup may use; none without a limit.
    std::optional<std::uint64_t> memory_bytes;
};

/// Reads the limits under the cgroup file systems mounted at `root` for the process whose
/// /proc/self/cgroup is `self_cgroup`. cgroup v2 (`root/cgroup.controllers` exists): cpu.max
/// and memory.max. v1: cpu.cfs_quota_us / cpu.cfs_period_us under `root/cpu` (or the mount
/// named after the line's controllers, e.g. `cpu,cpuacct`) and memory.limit_in_bytes under
/// `root/memory`. Every folder from the process's cgroup up to the root counts, the smallest
/// limit wins; a path not visible here (a container sees its own cgroup as the root) falls
/// back to the root. Files that are missing or unreadable mean no limit.
cgroup_limits read_cgroup_limits(const std::filesystem::path& root, std::string_view self_cgroup);

/// read_cgroup_limits() of this process: /proc/self/cgroup under /sys/fs/cgroup, or under
/// SPINDLE_CGROUP_ROOT when that is set (tests point it at a fake tree). Control thread.
cgroup_limits current_cgroup_limits();

/// The CPU count that defaults derive from (2 PHP threads per CPU, half as many I/O threads):
/// the machine's `hardware_threads`, lowered to the quota rounded up when there is one.
std::size_t available_cpus(unsigned hardware_threads, const cgroup_limits& limits);

/// A warning when `threads` PHP threads, each allowed `memory_limit_bytes` (PHP's
/// memory_limit; negative: unlimited), could need more than the cgroup's memory: the kernel's
/// OOM killer would then end the whole server, not one request. Empty when they fit.
std::optional<std::string> memory_warning(std::size_t threads, std::int64_t memory_limit_bytes,
                                          const cgroup_limits& limits);

/// Most threads that `max_threads auto` allows before PHP's settings are known (the slots are
/// sized at start): a thread per 16 MiB of `memory_bytes`, between `num_threads` and 512.
std::size_t automatic_thread_bound(std::size_t num_threads, std::uint64_t memory_bytes);

/// `max_threads auto`, as FrankenPHP estimates it: as many threads as `memory_bytes` (the
/// cgroup's limit, else the machine's memory) holds at PHP's memory_limit each, at least
/// `num_threads`, at most `bound`; twice num_threads when memory_limit is unlimited.
std::size_t automatic_max_threads(std::size_t num_threads, std::int64_t memory_limit_bytes,
                                  std::uint64_t memory_bytes, std::size_t bound);

/// The memory `max_threads auto` divides: the cgroup's limit, else the machine's RAM.
std::uint64_t usable_memory(const cgroup_limits& limits);

}  // namespace spindle::server
