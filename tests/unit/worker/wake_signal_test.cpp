#include "worker/wake_signal.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace spindle::worker {
namespace {

using namespace std::chrono_literals;
using clock = std::chrono::steady_clock;

TEST(WakeSignal, PostBeforeWaitIsNotLost) {
    wake_signal signal;
    signal.post();
    signal.wait();  // returns at once; a lost post would hang the test
    SUCCEED();
}

TEST(WakeSignal, SeveralPostsCountAsOne) {
    wake_signal signal;
    signal.post();
    signal.post();
    signal.post();
    EXPECT_TRUE(signal.wait_until(clock::now() + 1s));
    EXPECT_FALSE(signal.wait_until(clock::now() + 20ms));
}

TEST(WakeSignal, WaitUntilGivesUpAtTheDeadline) {
    wake_signal signal;
    const auto start = clock::now();
    EXPECT_FALSE(signal.wait_until(start + 50ms));
    EXPECT_GE(clock::now() - start, 50ms);
    // After a timeout the next post still wakes.
    signal.post();
    EXPECT_TRUE(signal.wait_until(clock::now() + 1s));
}

TEST(WakeSignal, PostFromAnotherThreadWakesASleeper) {
    wake_signal signal;
    std::atomic<bool> woken{false};
    std::thread sleeper([&] {
        signal.wait();
        woken = true;
    });
    std::this_thread::sleep_for(30ms);
    EXPECT_FALSE(woken.load());
    signal.post();
    sleeper.join();
    EXPECT_TRUE(woken.load());
}

TEST(WakeSignal, PingPongLosesNoWakeUp) {
    // Two threads hand a turn back and forth; one lost post would stall them (the test's
    // timeout then fails it).
    wake_signal to_b;
    wake_signal to_a;
    std::atomic<bool> stop{false};
    std::thread b([&] {
        while (true) {
            to_b.wait();
            if (stop) {
                return;
            }
            to_a.post();
        }
    });
    for (int i = 0; i < 20000; ++i) {
        to_b.post();
        if (!to_a.wait_until(clock::now() + 5s)) {
            ADD_FAILURE() << "no answer in round " << i;
            break;
        }
    }
    stop = true;
    to_b.post();
    b.join();
}

}  // namespace
}  // namespace spindle::worker
