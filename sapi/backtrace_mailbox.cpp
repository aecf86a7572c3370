#include "sapi/backtrace_mailbox.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <ctime>
#include <utility>

namespace spindle::sapi {
namespace {

// std::atomic<std::uint32_t> is a plain 32-bit word here, which is what a futex is.
static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));

std::uint32_t* futex_word(std::atomic<std::uint32_t>& word) noexcept {
    return reinterpret_cast<std::uint32_t*>(&word);
}

}  // namespace

void backtrace_mailbox::open(void (*interrupt)(void*), void* target) noexcept {
    std::lock_guard lock(mutex_);
    interrupt_ = interrupt;
    target_ = target;
}

std::vector<backtrace_order> backtrace_mailbox::close() {
    std::lock_guard lock(mutex_);
    interrupt_ = nullptr;
    target_ = nullptr;
    std::vector<backtrace_order> left = std::move(orders_);
    orders_.clear();
    count_.store(0, std::memory_order_release);
    return left;
}

bool backtrace_mailbox::post(backtrace_order order) {
    {
        // The interrupt under the lock: close() cannot free what it points to meanwhile.
        std::lock_guard lock(mutex_);
        if (interrupt_ == nullptr || orders_.size() == capacity) {
            return false;
        }
        orders_.push_back(std::move(order));
        count_.store(orders_.size(), std::memory_order_release);
        interrupt_(target_);
    }
    wake_.fetch_add(1, std::memory_order_acq_rel);
    syscall(SYS_futex, futex_word(wake_), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
    return true;
}

std::vector<backtrace_order> backtrace_mailbox::take() {
    std::lock_guard lock(mutex_);
    std::vector<backtrace_order> taken = std::move(orders_);
    orders_.clear();
    count_.store(0, std::memory_order_release);
    return taken;
}

mailbox_wait backtrace_mailbox::wait(std::uint32_t seen,
                                     std::chrono::nanoseconds timeout) noexcept {
    if (timeout <= std::chrono::nanoseconds::zero()) {
        return mailbox_wait::timed_out;
    }
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
    timespec relative{};
    relative.tv_sec = static_cast<time_t>(seconds.count());
    relative.tv_nsec = static_cast<long>((timeout - seconds).count());
    // FUTEX_WAIT's relative timeout runs on CLOCK_MONOTONIC, as nanosleep()'s does.
    if (syscall(SYS_futex, futex_word(wake_), FUTEX_WAIT_PRIVATE, seen, &relative, nullptr, 0) ==
        0) {
        return mailbox_wait::posted;
    }
    switch (errno) {
        case ETIMEDOUT: return mailbox_wait::timed_out;
        case EINTR: return mailbox_wait::interrupted;
        default:
            // EAGAIN: the counter moved before the wait began, an order came.
            return mailbox_wait::posted;
    }
}

}  // namespace spindle::sapi
