#include "worker/slow_request_watch.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <optional>
#include <string>

#include <spdlog/spdlog.h>

#include "sapi/slow_log.hpp"
#include "worker/pool.hpp"

namespace spindle::worker {

bool slow_request_tracker::is_due(std::size_t slot, std::uint64_t id, std::int64_t since,
                                  std::int64_t now) noexcept {
    if (slot >= reported_.size() || reported_[slot] == id || now - since < threshold_.count()) {
        return false;
    }
    reported_[slot] = id;
    return true;
}

slow_request_watch::slow_request_watch(pool& watched, std::chrono::milliseconds threshold)
    : pool_(watched),
      threshold_(threshold),
      tick_(tick_for(threshold)),
      thread_([this] { run(); }) {}

slow_request_watch::~slow_request_watch() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    stop_.notify_all();
    thread_.join();
}

std::chrono::milliseconds slow_request_watch::tick_for(
    std::chrono::milliseconds threshold) noexcept {
    return std::clamp(threshold / 10, std::chrono::milliseconds(10),
                      std::chrono::milliseconds(250));
}

void slow_request_watch::run() {
    pthread_setname_np(pthread_self(), "spindle-slowlog");
    // Like the execution watchdog: not SCHED_BATCH, whatever the control thread runs as, so
    // busy PHP threads do not make the slow log late.
    sched_param param{};
    pthread_setschedparam(pthread_self(), SCHED_OTHER, &param);
    slow_request_tracker tracker(pool_.slots().size(),
                                 std::chrono::duration_cast<std::chrono::nanoseconds>(threshold_));
    const std::chrono::milliseconds threshold = threshold_;
    slot::running_copy running;
    std::unique_lock lock(mutex_);
    while (!stop_.wait_for(lock, tick_, [this] { return stopping_; })) {
        lock.unlock();
        const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count();
        const auto& slots = pool_.slots();
        for (std::size_t i = 0; i < slots.size(); ++i) {
            if (!slots[i]->copy_running(running) ||
                !tracker.is_due(i, running.id, running.since, now)) {
                continue;
            }
            // What the line needs if no backtrace can be taken: copied, the request may end.
            const bool ordered = pool_.request_backtrace(
                i, {running.id, running.since,
                    [threshold, slot = i, id = running.id, since = running.since,
                     method = std::string(running.method),
                     uri = std::string(running.uri)](std::optional<sapi::backtrace_report> report) {
                        if (report) {
                            sapi::log_slow_request(*report, threshold);
                            return;
                        }
                        const auto now = std::chrono::steady_clock::now().time_since_epoch();
                        sapi::log_slow_request_without_backtrace(
                            slot, id, method, uri,
                            std::chrono::duration_cast<std::chrono::nanoseconds>(now) -
                                std::chrono::nanoseconds(since),
                            threshold);
                    }});
            if (!ordered) {
                spdlog::get("worker")->warn(
                    "[slot {} req {}] slow request: {} {} is past slowlog_timeout, but its PHP "
                    "thread cannot take a backtrace now (too many waiting); look at "
                    "GET /threads on the admin endpoint",
                    i, running.id, running.method, running.uri);
            }
        }
        lock.lock();
    }
}

}  // namespace spindle::worker
