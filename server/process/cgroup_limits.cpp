#include "server/process/cgroup_limits.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace spindle::server {
namespace {

namespace fs = std::filesystem;

// cgroup v1 writes "no limit" as the largest page-aligned 64-bit value; anything this large is
// no limit in practice.
constexpr std::uint64_t unlimited_threshold = std::uint64_t{1} << 62;

std::optional<std::string> first_line(const fs::path& file) {
    std::ifstream in(file);
    std::string line;
    if (!in || !std::getline(in, line)) {
        return std::nullopt;
    }
    return line;
}

std::optional<std::int64_t> to_integer(std::string_view text) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

void keep_smaller(std::optional<double>& current, double candidate) {
    current = current ? std::min(*current, candidate) : candidate;
}

void keep_smaller(std::optional<std::uint64_t>& current, std::uint64_t candidate) {
    current = current ? std::min(*current, candidate) : candidate;
}

// The folders that bound the process: its cgroup and each ancestor up to the mount's root. A
// cgroup path that is not visible under the mount (a container's namespace shows its own cgroup
// as the root) leaves the root alone.
std::vector<fs::path> cgroup_folders(const fs::path& mount, std::string_view cgroup_path) {
    std::vector<fs::path> folders;
    fs::path relative = fs::path(std::string(cgroup_path)).relative_path();
    std::error_code ec;
    if (!relative.empty() && fs::is_directory(mount / relative, ec)) {
        for (fs::path p = relative; !p.empty() && p != p.parent_path(); p = p.parent_path()) {
            folders.push_back(mount / p);
        }
    }
    folders.push_back(mount);
    return folders;
}

struct cgroup_line {
    std::string controllers;  // "" for the v2 line "0::/path"
    std::string path;
};

std::vector<cgroup_line> parse_self_cgroup(std::string_view text) {
    std::vector<cgroup_line> lines;
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line)) {
        const auto first = line.find(':');
        const auto second = first == std::string::npos ? first : line.find(':', first + 1);
        if (second == std::string::npos) {
            continue;
        }
        lines.push_back({line.substr(first + 1, second - first - 1), line.substr(second + 1)});
    }
    return lines;
}

bool has_controller(const std::string& controllers, std::string_view name) {
    std::istringstream in(controllers);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (item == name) {
            return true;
        }
    }
    return false;
}

void read_v2(const fs::path& root, const std::string& path, cgroup_limits& limits) {
    for (const fs::path& folder : cgroup_folders(root, path)) {
        // cpu.max: "$MAX $PERIOD", "max 100000" without a quota.
        if (auto line = first_line(folder / "cpu.max")) {
            std::istringstream fields(*line);
            std::string quota;
            std::string period;
            fields >> quota >> period;
            const auto q = to_integer(quota);
            const auto p = to_integer(period);
            if (q && p && *q > 0 && *p > 0) {
                keep_smaller(limits.cpus, static_cast<double>(*q) / static_cast<double>(*p));
            }
        }
        if (auto line = first_line(folder / "memory.max")) {
            if (auto bytes = to_integer(*line); bytes && *bytes > 0) {
                keep_smaller(limits.memory_bytes, static_cast<std::uint64_t>(*bytes));
            }
        }
    }
}

// The v1 mount of a controller: systemd and Docker mount "cpu,cpuacct" and link "cpu" to it.
fs::path v1_mount(const fs::path& root, const std::string& controllers, std::string_view name) {
    std::error_code ec;
    if (fs::is_directory(root / controllers, ec)) {
        return root / controllers;
    }
    return root / std::string(name);
}

void read_v1(const fs::path& root, const std::vector<cgroup_line>& lines, cgroup_limits& limits) {
    for (const cgroup_line& line : lines) {
        if (has_controller(line.controllers, "cpu")) {
            for (const fs::path& folder :
                 cgroup_folders(v1_mount(root, line.controllers, "cpu"), line.path)) {
                const auto quota = first_line(folder / "cpu.cfs_quota_us");
                const auto period = first_line(folder / "cpu.cfs_period_us");
                const auto q = quota ? to_integer(*quota) : std::nullopt;
                const auto p = period ? to_integer(*period) : std::nullopt;
                // A quota of -1 is none.
                if (q && p && *q > 0 && *p > 0) {
                    keep_smaller(limits.cpus, static_cast<double>(*q) / static_cast<double>(*p));
                }
            }
        }
        if (has_controller(line.controllers, "memory")) {
            for (const fs::path& folder :
                 cgroup_folders(v1_mount(root, line.controllers, "memory"), line.path)) {
                if (auto text = first_line(folder / "memory.limit_in_bytes")) {
                    const auto bytes = to_integer(*text);
                    if (bytes && *bytes > 0 &&
                        static_cast<std::uint64_t>(*bytes) < unlimited_threshold) {
                        keep_smaller(limits.memory_bytes, static_cast<std::uint64_t>(*bytes));
                    }
                }
            }
        }
    }
}

}  // namespace

cgroup_limits read_cgroup_limits(const fs::path& root, std::string_view self_cgroup) {
    cgroup_limits limits;
    const std::vector<cgroup_line> lines = parse_self_cgroup(self_cgroup);
    std::error_code ec;
    if (fs::exists(root / "cgroup.controllers", ec)) {
        for (const cgroup_line& line : lines) {
            if (line.controllers.empty()) {
                read_v2(root, line.path, limits);
            }
        }
        return limits;
    }
    read_v1(root, lines, limits);
    return limits;
}

cgroup_limits current_cgroup_limits() {
    const char* override_root = std::getenv("SPINDLE_CGROUP_ROOT");
    const fs::path root = override_root != nullptr ? override_root : "/sys/fs/cgroup";
    std::ifstream in("/proc/self/cgroup");
    std::ostringstream text;
    text << in.rdbuf();
    return read_cgroup_limits(root, text.str());
}

std::size_t available_cpus(unsigned hardware_threads, const cgroup_limits& limits) {
    std::size_t cpus = std::max(1u, hardware_threads);
    if (limits.cpus) {
        cpus = std::min(cpus, static_cast<std::size_t>(std::max(1.0, std::ceil(*limits.cpus))));
    }
    return cpus;
}

std::size_t automatic_thread_bound(std::size_t num_threads, std::uint64_t memory_bytes) {
    constexpr std::uint64_t per_thread_floor = 16ULL * 1024 * 1024;
    return std::max<std::size_t>(num_threads,
                                 std::min<std::uint64_t>(512, memory_bytes / per_thread_floor));
}

std::size_t automatic_max_threads(std::size_t num_threads, std::int64_t memory_limit_bytes,
                                  std::uint64_t memory_bytes, std::size_t bound) {
    if (memory_limit_bytes <= 0) {
        return std::max(num_threads, std::min(2 * num_threads, bound));
    }
    const std::uint64_t fits = memory_bytes / static_cast<std::uint64_t>(memory_limit_bytes);
    return std::max<std::size_t>(num_threads, std::min<std::uint64_t>(fits, bound));
}

std::uint64_t usable_memory(const cgroup_limits& limits) {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGESIZE);
    const std::uint64_t machine =
        pages > 0 && page_size > 0
            ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size)
            : 0;
    return limits.memory_bytes ? std::min(*limits.memory_bytes, machine ? machine : UINT64_MAX)
                               : machine;
}

std::optional<std::string> memory_warning(std::size_t threads, std::int64_t memory_limit_bytes,
                                          const cgroup_limits& limits) {
    if (!limits.memory_bytes || memory_limit_bytes < 0) {
        return std::nullopt;
    }
    constexpr double mib = 1024.0 * 1024.0;
    const double needed = static_cast<double>(threads) * static_cast<double>(memory_limit_bytes);
    if (needed <= static_cast<double>(*limits.memory_bytes)) {
        return std::nullopt;
    }
    std::ostringstream text;
    text << threads << " PHP threads x memory_limit " << std::llround(memory_limit_bytes / mib)
         << " MiB = " << std::llround(needed / mib) << " MiB exceeds the cgroup's memory limit of "
         << std::llround(static_cast<double>(*limits.memory_bytes) / mib)
         << " MiB: the kernel would kill the whole server rather than fail one request. Lower "
            "num_threads (--threads) or memory_limit, or raise the container's memory limit";
    return text.str();
}

}  // namespace spindle::server
