#include "sapi/execution_watchdog.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace spindle::sapi {
namespace {

using namespace std::chrono_literals;
using clock = std::chrono::steady_clock;

// Records which slots expired, and when.
struct expirations {
    std::mutex mutex;
    std::vector<std::pair<std::size_t, clock::time_point>> seen;

    void add(std::size_t slot) {
        std::lock_guard lock(mutex);
        seen.emplace_back(slot, clock::now());
    }
    std::vector<std::pair<std::size_t, clock::time_point>> get() {
        std::lock_guard lock(mutex);
        return seen;
    }
    // Waits up to `limit` for `count` expirations.
    bool wait_for(std::size_t count, std::chrono::milliseconds limit) {
        const auto until = clock::now() + limit;
        while (clock::now() < until) {
            if (get().size() >= count) {
                return true;
            }
            std::this_thread::sleep_for(2ms);
        }
        return get().size() >= count;
    }
};

TEST(ExecutionWatchdog, ReportsTheSlotWhoseDeadlinePassedOnceAndNotBefore) {
    expirations seen;
    execution_watchdog watchdog(
        3, [&](std::size_t slot) { seen.add(slot); }, 5ms);
    const auto start = clock::now();
    watchdog.arm(1, 50ms);
    ASSERT_TRUE(seen.wait_for(1, 5000ms));
    const auto got = seen.get();
    EXPECT_EQ(got[0].first, 1u);
    EXPECT_GE(got[0].second - start, 50ms);
    // Reported once: the deadline is cleared when it is reported.
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(seen.get().size(), 1u);
}

TEST(ExecutionWatchdog, DisarmedDeadlineIsNeverReported) {
    expirations seen;
    execution_watchdog watchdog(
        2, [&](std::size_t slot) { seen.add(slot); }, 5ms);
    watchdog.arm(0, 30ms);
    watchdog.arm(1, 30ms);
    watchdog.disarm(0);
    ASSERT_TRUE(seen.wait_for(1, 5000ms));
    std::this_thread::sleep_for(60ms);
    const auto got = seen.get();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].first, 1u);
}

TEST(ExecutionWatchdog, ArmingAgainReplacesTheDeadline) {
    // A worker's next request starts its limit afresh: the first deadline no longer counts.
    expirations seen;
    execution_watchdog watchdog(
        1, [&](std::size_t slot) { seen.add(slot); }, 5ms);
    watchdog.arm(0, 40ms);
    const auto rearmed = clock::now();
    watchdog.arm(0, 400ms);
    ASSERT_TRUE(seen.wait_for(1, 5000ms));
    EXPECT_GE(seen.get()[0].second - rearmed, 400ms);
}

TEST(ExecutionWatchdog, NoReportAfterDisarmReturns) {
    // The slot thread disarms as its request ends; a report for that request arriving later
    // would end the next one. Many short requests race the watchdog's tick here.
    std::atomic<bool> in_request{false};
    std::atomic<int> late_reports{0};
    execution_watchdog watchdog(
        1,
        [&](std::size_t) {
            if (!in_request.load()) {
                late_reports.fetch_add(1);
            }
        },
        1ms);
    const auto until = clock::now() + 300ms;
    while (clock::now() < until) {
        in_request.store(true);
        watchdog.arm(0, 0ms);
        std::this_thread::yield();
        watchdog.disarm(0);
        in_request.store(false);
    }
    EXPECT_EQ(late_reports.load(), 0);
}

TEST(ExecutionWatchdog, DestructionStopsAWatchdogThatIsWaiting) {
    const auto start = clock::now();
    {
        execution_watchdog watchdog(
            1, [](std::size_t) {}, 1h);
        watchdog.arm(0, 1h);
    }
    // The one-hour tick was interrupted, not waited out.
    EXPECT_LT(clock::now() - start, 30s);
}

}  // namespace
}  // namespace spindle::sapi
