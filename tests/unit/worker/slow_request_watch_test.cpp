#include "worker/slow_request_watch.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace spindle::worker {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t ms = 1'000'000;  // nanoseconds

TEST(SlowRequestTracker, ReportsARequestOnceItPassedTheThreshold) {
    slow_request_tracker tracker(2, 500ms);
    EXPECT_FALSE(tracker.is_due(0, 7, 1000 * ms, 1499 * ms));
    EXPECT_TRUE(tracker.is_due(0, 7, 1000 * ms, 1500 * ms));
    // Once only, however long it keeps running.
    EXPECT_FALSE(tracker.is_due(0, 7, 1000 * ms, 1600 * ms));
    EXPECT_FALSE(tracker.is_due(0, 7, 1000 * ms, 9000 * ms));
}

TEST(SlowRequestTracker, TheNextRequestOfASlotIsReportedAgain) {
    slow_request_tracker tracker(2, 500ms);
    EXPECT_TRUE(tracker.is_due(1, 7, 0, 600 * ms));
    EXPECT_FALSE(tracker.is_due(1, 8, 600 * ms, 700 * ms));
    EXPECT_TRUE(tracker.is_due(1, 8, 600 * ms, 1100 * ms));
    // Slots are independent.
    EXPECT_TRUE(tracker.is_due(0, 9, 0, 1100 * ms));
}

TEST(SlowRequestTracker, IgnoresSlotsPastItsSize) {
    slow_request_tracker tracker(1, 1ms);
    EXPECT_FALSE(tracker.is_due(1, 7, 0, 1000 * ms));
}

TEST(SlowRequestWatch, TicksATenthOfTheThresholdWithinBounds) {
    EXPECT_EQ(slow_request_watch::tick_for(5s), 250ms);
    EXPECT_EQ(slow_request_watch::tick_for(1s), 100ms);
    EXPECT_EQ(slow_request_watch::tick_for(300ms), 30ms);
    EXPECT_EQ(slow_request_watch::tick_for(1ms), 10ms);
}

}  // namespace
}  // namespace spindle::worker
