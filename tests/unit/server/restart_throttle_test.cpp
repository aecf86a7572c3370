#include "server/process/restart_throttle.hpp"

#include <gtest/gtest.h>

namespace spindle::server {
namespace {

using namespace std::chrono_literals;
using clock = restart_throttle::clock;

TEST(RestartState, GivenUpIsFinal) {
    EXPECT_EQ(next_restart_state(restart_state::given_up, 0, 3), restart_state::given_up);
    EXPECT_EQ(next_restart_state(restart_state::given_up, 1, 0), restart_state::given_up);
}

TEST(RestartState, CountsAgainstTheThreshold) {
    EXPECT_EQ(next_restart_state(restart_state::steady, 0, 3), restart_state::steady);
    EXPECT_EQ(next_restart_state(restart_state::steady, 1, 3), restart_state::recovering);
    EXPECT_EQ(next_restart_state(restart_state::recovering, 2, 3), restart_state::recovering);
    EXPECT_EQ(next_restart_state(restart_state::recovering, 3, 3), restart_state::given_up);
    EXPECT_EQ(next_restart_state(restart_state::recovering, 0, 3), restart_state::steady);
}

TEST(RestartState, ThresholdZeroNeverGivesUp) {
    EXPECT_EQ(next_restart_state(restart_state::recovering, 1'000'000, 0),
              restart_state::recovering);
}

TEST(RestartState, Names) {
    EXPECT_EQ(to_string(restart_state::steady), "steady");
    EXPECT_EQ(to_string(restart_state::recovering), "recovering");
    EXPECT_EQ(to_string(restart_state::given_up), "given_up");
}

TEST(RestartThrottle, GivesUpAtTheThresholdWithinTheWindow) {
    restart_throttle throttle(3, 10s);
    const clock::time_point t0{};
    EXPECT_EQ(throttle.on_death(t0), restart_state::recovering);
    EXPECT_EQ(throttle.on_death(t0 + 1s), restart_state::recovering);
    EXPECT_EQ(throttle.on_death(t0 + 2s), restart_state::given_up);
    EXPECT_EQ(throttle.deaths_in_window(), 3u);
    // Given up stays given up, however long it stays quiet.
    EXPECT_EQ(throttle.state_at(t0 + 1h), restart_state::given_up);
}

TEST(RestartThrottle, DeathsOutsideTheWindowDoNotCount) {
    restart_throttle throttle(3, 10s);
    const clock::time_point t0{};
    EXPECT_EQ(throttle.on_death(t0), restart_state::recovering);
    EXPECT_EQ(throttle.on_death(t0 + 5s), restart_state::recovering);
    // The first death is 10 s old now: two in the window, not three.
    EXPECT_EQ(throttle.on_death(t0 + 10s), restart_state::recovering);
    EXPECT_EQ(throttle.deaths_in_window(), 2u);
    EXPECT_EQ(throttle.state_at(t0 + 30s), restart_state::steady);
    EXPECT_EQ(throttle.deaths_in_window(), 0u);
}

TEST(RestartThrottle, ThresholdOneGivesUpAtTheFirstDeath) {
    restart_throttle throttle(1, 1s);
    EXPECT_EQ(throttle.on_death(clock::time_point{}), restart_state::given_up);
}

TEST(RestartThrottle, ThresholdZeroRestartsForever) {
    restart_throttle throttle(0, 60s);
    const clock::time_point t0{};
    for (int i = 0; i < 1000; ++i) {
        EXPECT_EQ(throttle.on_death(t0 + std::chrono::milliseconds(i)), restart_state::recovering);
    }
}

}  // namespace
}  // namespace spindle::server
