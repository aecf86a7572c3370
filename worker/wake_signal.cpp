#include "worker/wake_signal.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

namespace spindle::worker {

void wake_signal::post() noexcept {
    // Only a sleeping owner needs the system call.
    if (state_.exchange(posted, std::memory_order_release) == sleeping) {
        ::syscall(SYS_futex, &state_, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
    }
}

void wake_signal::wait() noexcept {
    wait_for_post(nullptr);
}

bool wake_signal::wait_until(std::chrono::steady_clock::time_point deadline) noexcept {
    return wait_for_post(&deadline);
}

bool wake_signal::wait_for_post(const std::chrono::steady_clock::time_point* deadline) noexcept {
    while (true) {
        std::uint32_t expected = posted;
        if (state_.compare_exchange_strong(expected, idle, std::memory_order_acquire)) {
            return true;
        }
        // idle or sleeping: announce the sleep; a post() from here on sees it and wakes us,
        // or changes the state so that the futex call returns at once.
        if (expected == idle &&
            !state_.compare_exchange_strong(expected, sleeping, std::memory_order_relaxed)) {
            continue;  // a post() came in between
        }
        if (!sleep(deadline)) {
            // Left as `sleeping`: a later post() makes one futex call for nobody, harmless.
            expected = posted;
            return state_.compare_exchange_strong(expected, idle, std::memory_order_acquire);
        }
    }
}

bool wake_signal::sleep(const std::chrono::steady_clock::time_point* deadline) noexcept {
    timespec until{};
    if (deadline != nullptr) {
        // FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time, steady_clock's on Linux.
        const auto since_epoch = deadline->time_since_epoch();
        const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
        until.tv_sec = static_cast<time_t>(seconds.count());
        until.tv_nsec = static_cast<long>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch - seconds).count());
    }
    const long result =
        ::syscall(SYS_futex, &state_, FUTEX_WAIT_BITSET_PRIVATE, sleeping,
                  deadline != nullptr ? &until : nullptr, nullptr, FUTEX_BITSET_MATCH_ANY);
    return !(result != 0 && errno == ETIMEDOUT);
}

}  // namespace spindle::worker
