#include "worker/scaling_rule.hpp"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>

namespace spindle::worker {
namespace {

std::chrono::nanoseconds process_cpu_time() noexcept {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

}  // namespace

std::size_t threads_to_add(const growth_inputs& in) noexcept {
    if (in.cpu_usage >= max_cpu_usage_for_growth || in.cpu_wait >= max_cpu_wait_for_growth ||
        in.threads >= in.max_threads || in.queued <= in.booting) {
        return 0;
    }
    const std::size_t demand = in.queued - in.booting;
    const std::size_t step = std::max<std::size_t>(in.threads, 1);
    return std::min({demand, step, in.max_threads - in.threads, in.pool_room});
}

void cpu_meter::restart() noexcept {
    wall_start_ = std::chrono::steady_clock::now();
    cpu_start_ = process_cpu_time();
}

bool cpu_meter::elapsed(std::chrono::nanoseconds window) const noexcept {
    return std::chrono::steady_clock::now() - wall_start_ >= window;
}

double cpu_meter::usage() noexcept {
    const auto now = std::chrono::steady_clock::now();
    const std::chrono::nanoseconds wall = now - wall_start_;
    const std::chrono::nanoseconds cpu = process_cpu_time();
    const double fraction = wall.count() <= 0 ? 0.0
                                              : static_cast<double>((cpu - cpu_start_).count()) /
                                                    static_cast<double>(wall.count()) /
                                                    static_cast<double>(cpus_);
    wall_start_ = now;
    cpu_start_ = cpu;
    return fraction;
}

std::optional<std::chrono::nanoseconds> cpu_waited(pid_t tid) noexcept {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", static_cast<int>(tid));
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return std::nullopt;
    }
    char text[128];
    const ssize_t length = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    if (length <= 0) {
        return std::nullopt;
    }
    // "RUNNING_NS WAITING_NS TIMESLICES\n"
    const char* end = text + length;
    std::uint64_t running = 0;
    std::uint64_t waiting = 0;
    auto parsed = std::from_chars(text, end, running);
    if (parsed.ec != std::errc() || parsed.ptr == end || *parsed.ptr != ' ') {
        return std::nullopt;
    }
    parsed = std::from_chars(parsed.ptr + 1, end, waiting);
    if (parsed.ec != std::errc()) {
        return std::nullopt;
    }
    return std::chrono::nanoseconds(waiting);
}

}  // namespace spindle::worker
