#include "server/admin/process_stats.hpp"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace spindle::server {

namespace {

double seconds(const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}

std::optional<std::uint64_t> count_open_fds() {
    DIR* dir = ::opendir("/proc/self/fd");
    if (dir == nullptr) {
        return std::nullopt;
    }
    std::uint64_t count = 0;
    while (const dirent* entry = ::readdir(dir)) {
        if (entry->d_name[0] != '.') {
            ++count;
        }
    }
    ::closedir(dir);
    // The directory stream's own descriptor is listed too; it is not the process's.
    return count > 0 ? count - 1 : 0;
}

// Field 22 of /proc/self/stat (start time in clock ticks after boot) + btime of /proc/stat.
std::optional<double> start_time() {
    std::ifstream stat("/proc/self/stat");
    std::string text;
    if (!std::getline(stat, text)) {
        return std::nullopt;
    }
    // The command name (field 2) may hold spaces; the fields after it follow its ')'.
    const std::size_t close = text.rfind(')');
    if (close == std::string::npos) {
        return std::nullopt;
    }
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    // Field 3 is the first after ')'; field 22 is the 20th.
    for (int i = 3; i <= 22 && fields >> field; ++i) {
    }
    if (!fields) {
        return std::nullopt;
    }
    const double ticks = std::stod(field);
    std::ifstream system_stat("/proc/stat");
    for (std::string line; std::getline(system_stat, line);) {
        if (line.starts_with("btime ")) {
            return std::stod(line.substr(6)) + ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
        }
    }
    return std::nullopt;
}

}  // namespace

process_sample read_process_sample() {
    process_sample out;
    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) == 0) {
        out.cpu_seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    }
    std::ifstream statm("/proc/self/statm");
    std::uint64_t size_pages = 0;
    std::uint64_t resident_pages = 0;
    if (statm >> size_pages >> resident_pages) {
        const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
        out.virtual_bytes = size_pages * page;
        out.resident_bytes = resident_pages * page;
    }
    out.open_fds = count_open_fds();
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY) {
        out.max_fds = files.rlim_cur;
    }
    out.start_time_seconds = start_time();
    return out;
}

}  // namespace spindle::server
