#include "sapi/backtrace_mailbox.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <thread>
#include <vector>

namespace spindle::sapi {
namespace {

using namespace std::chrono_literals;

backtrace_order order_for(std::uint64_t id, std::vector<std::uint64_t>* answered = nullptr) {
    return {id, 0, [answered, id](std::optional<backtrace_report>) {
                if (answered != nullptr) {
                    answered->push_back(id);
                }
            }};
}

// What open() hands the mailbox: counts the interrupts instead of setting a VM's.
void count_interrupt(void* target) noexcept {
    ++*static_cast<int*>(target);
}

TEST(BacktraceMailbox, RefusesOrdersUntilOpenAndAfterClose) {
    backtrace_mailbox mailbox;
    std::vector<std::uint64_t> answered;
    EXPECT_FALSE(mailbox.post(order_for(1, &answered)));
    EXPECT_FALSE(mailbox.has_orders());
    int interrupts = 0;
    mailbox.open(count_interrupt, &interrupts);
    ASSERT_TRUE(mailbox.post(order_for(2)));
    ASSERT_TRUE(mailbox.post(order_for(3)));
    EXPECT_EQ(interrupts, 2);
    // Closing hands back what was left, for the caller to answer.
    const std::vector<backtrace_order> left = mailbox.close();
    ASSERT_EQ(left.size(), 2u);
    EXPECT_FALSE(mailbox.has_orders());
    EXPECT_FALSE(mailbox.post(order_for(4, &answered)));
    EXPECT_EQ(interrupts, 2);
    EXPECT_TRUE(answered.empty());
}

TEST(BacktraceMailbox, TakesOrdersOldestFirstAndEmpties) {
    backtrace_mailbox mailbox;
    int interrupts = 0;
    mailbox.open(count_interrupt, &interrupts);
    EXPECT_FALSE(mailbox.has_orders());
    ASSERT_TRUE(mailbox.post(order_for(7)));
    ASSERT_TRUE(mailbox.post(order_for(8)));
    EXPECT_TRUE(mailbox.has_orders());
    const std::vector<backtrace_order> taken = mailbox.take();
    ASSERT_EQ(taken.size(), 2u);
    EXPECT_EQ(taken[0].request_id, 7u);
    EXPECT_EQ(taken[1].request_id, 8u);
    EXPECT_FALSE(mailbox.has_orders());
    EXPECT_TRUE(mailbox.take().empty());
}

TEST(BacktraceMailbox, RefusesPastItsCapacityWithoutCallingBack) {
    backtrace_mailbox mailbox;
    int interrupts = 0;
    mailbox.open(count_interrupt, &interrupts);
    std::vector<std::uint64_t> answered;
    for (std::size_t i = 0; i < backtrace_mailbox::capacity; ++i) {
        ASSERT_TRUE(mailbox.post(order_for(i + 1, &answered)));
    }
    EXPECT_FALSE(mailbox.post(order_for(99, &answered)));
    EXPECT_TRUE(answered.empty());
    EXPECT_EQ(mailbox.take().size(), backtrace_mailbox::capacity);
    EXPECT_TRUE(mailbox.post(order_for(100)));
}

TEST(BacktraceMailbox, WaitTimesOutWhenNothingComes) {
    backtrace_mailbox mailbox;
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(mailbox.wait(mailbox.wake_value(), 30ms), mailbox_wait::timed_out);
    EXPECT_GE(std::chrono::steady_clock::now() - start, 30ms);
    EXPECT_EQ(mailbox.wait(mailbox.wake_value(), 0ms), mailbox_wait::timed_out);
}

TEST(BacktraceMailbox, PostWakesAWaitAtOnce) {
    backtrace_mailbox mailbox;
    int interrupts = 0;
    mailbox.open(count_interrupt, &interrupts);
    const std::uint32_t seen = mailbox.wake_value();
    std::thread poster([&] {
        std::this_thread::sleep_for(20ms);
        ASSERT_TRUE(mailbox.post(order_for(1)));
    });
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(mailbox.wait(seen, 10s), mailbox_wait::posted);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
    EXPECT_TRUE(mailbox.has_orders());
    poster.join();
}

TEST(BacktraceMailbox, PostBeforeTheWaitIsNotLost) {
    // The sleeper read the counter, then an order came before it went to sleep: the wait must
    // return at once instead of sleeping through it.
    backtrace_mailbox mailbox;
    int interrupts = 0;
    mailbox.open(count_interrupt, &interrupts);
    const std::uint32_t seen = mailbox.wake_value();
    ASSERT_TRUE(mailbox.post(order_for(1)));
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(mailbox.wait(seen, 10s), mailbox_wait::posted);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(BacktraceFields, NameTheRequestAndEveryFrame) {
    backtrace_report report;
    report.slot = 3;
    report.request_id = 42;
    report.method = "GET";
    report.uri = "/a.php?x=\xff";
    report.host = "example.test";
    report.running = 1500ms;
    report.frames = {{"sleep", "", 0}, {"App\\Job->run", "/srv/app/Job.php", 17}};
    const std::string fields = backtrace_fields(report);
    EXPECT_EQ(fields, R"("backtrace":[{"function":"sleep"},{"file":"/srv/app/Job.php","function":)"
                      R"("App\\Job->run","line":17}],"host":"example.test","method":"GET",)"
                      R"("request_id":42,"running_seconds":1.5,"slot":3,"uri":"/a.php?x=)"
                      "\xef\xbf\xbd\"");
}

}  // namespace
}  // namespace spindle::sapi
