#include "sapi/execution_watchdog.hpp"

#include <pthread.h>
#include <sched.h>

#include <utility>

namespace spindle::sapi {

execution_watchdog::execution_watchdog(std::size_t slots,
                                       std::function<void(std::size_t)> on_expired,
                                       std::chrono::milliseconds tick)
    : slots_(slots),
      entries_(std::make_unique<entry[]>(slots)),
      on_expired_(std::move(on_expired)),
      tick_(tick) {}

execution_watchdog::~execution_watchdog() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    stop_.notify_all();
    if (thread_.joinable()) {
        thread_.join();
    }
}

void execution_watchdog::arm(std::size_t slot, std::chrono::milliseconds limit) {
    std::call_once(started_, [this] { thread_ = std::thread([this] { run(); }); });
    const clock::time_point deadline = clock::now() + limit;
    entry& e = entries_[slot];
    std::lock_guard lock(e.mutex);
    e.deadline = deadline;
    e.armed = true;
}

void execution_watchdog::disarm(std::size_t slot) noexcept {
    entry& e = entries_[slot];
    std::lock_guard lock(e.mutex);
    e.armed = false;
}

void execution_watchdog::run() {
    pthread_setname_np(pthread_self(), "spindle-watch");
    // The first arm() runs on a PHP slot thread, whose SCHED_BATCH (worker/pool.cpp) this thread
    // inherits; a watchdog whose wake-ups wait for a busy PHP thread's time slice would end
    // overdue requests late. Should the kernel refuse, it runs as the slot threads do.
    sched_param param{};
    pthread_setschedparam(pthread_self(), SCHED_OTHER, &param);
    std::unique_lock lock(mutex_);
    while (!stop_.wait_for(lock, tick_, [this] { return stopping_; })) {
        lock.unlock();
        const clock::time_point now = clock::now();
        for (std::size_t i = 0; i < slots_; ++i) {
            entry& e = entries_[i];
            std::lock_guard slot_lock(e.mutex);
            if (e.armed && e.deadline <= now) {
                e.armed = false;
                on_expired_(i);
            }
        }
        lock.lock();
    }
}

}  // namespace spindle::sapi
