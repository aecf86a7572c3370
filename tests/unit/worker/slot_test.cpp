#include "worker/slot.hpp"

#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "worker/pool.hpp"

namespace spindle::worker {
namespace {

using namespace std::chrono_literals;

// Serves every request at once; counts them.
class instant_runtime final : public slot_runtime {
  public:
    void run_thread(std::size_t index, pool& host) override {
        while (job j = host.next_job(index)) {
            served_.fetch_add(1);
        }
    }
    std::atomic<int> served_{0};
};

// The URI a request with method "M<n>" carries, so a reader can tell a torn read.
std::string uri_for(int n) {
    return "/" +
           std::string(static_cast<std::size_t>(n * 37 % 300), static_cast<char>('a' + n % 26));
}

// The client a request "M<n>" comes from.
std::string client_for(int n) {
    return "10.0." + std::to_string(n % 256) + ".1";
}

job make_job(int n) {
    auto r = std::make_shared<sapi::request>();
    r->method = "M" + std::to_string(n);
    r->uri = uri_for(n);
    r->remote_addr = client_for(n);
    r->id = static_cast<std::uint64_t>(n) + 1000;
    return r;
}

class SlotTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        if (!spdlog::get("worker")) {
            spdlog::register_logger(std::make_shared<spdlog::logger>(
                "worker", std::make_shared<spdlog::sinks::null_sink_mt>()));
        }
    }
};

TEST(RestartReason, NamesAndCrashes) {
    EXPECT_EQ(to_string(restart_reason::boot_failure), "boot_failure");
    EXPECT_TRUE(is_crash(restart_reason::boot_failure));
    EXPECT_TRUE(is_crash(restart_reason::crash));
    EXPECT_FALSE(is_crash(restart_reason::recycled));
}

TEST_F(SlotTest, RunningRequestIsNeverTornWhileTheSlotServes) {
    instant_runtime runtime;
    pool p(pool_options{{group_options{"classic", 1, unowned(runtime)}}, 100'000});
    ASSERT_TRUE(p.start());
    const slot& s = *p.slots()[0];
    EXPECT_EQ(s.running(), std::nullopt);
    EXPECT_EQ(s.boots(), 1u);

    std::atomic<bool> done{false};
    std::atomic<int> seen{0};
    std::thread reader([&] {
        while (!done.load()) {
            if (const auto r = s.running()) {
                ASSERT_TRUE(r->method.starts_with("M")) << r->method;
                const int n = std::stoi(r->method.substr(1));
                const std::string expected = uri_for(n);
                EXPECT_EQ(r->client, client_for(n));
                EXPECT_EQ(r->id, static_cast<std::uint64_t>(n) + 1000);
                // Cut at the capacity, method, client and separators included.
                EXPECT_EQ(r->uri, expected.substr(0, slot::running_text_capacity -
                                                         r->method.size() - r->client.size() - 2));
                seen.fetch_add(1);
            }
            // The crash report's reader, into fixed buffers: the same request, never torn.
            slot::running_copy copy;
            if (s.copy_running(copy)) {
                ASSERT_TRUE(copy.method.starts_with("M")) << copy.method;
                const int n = std::stoi(std::string(copy.method.substr(1)));
                EXPECT_EQ(copy.client, client_for(n));
                EXPECT_EQ(copy.id, static_cast<std::uint64_t>(n) + 1000);
                EXPECT_TRUE(uri_for(n).starts_with(copy.uri)) << copy.uri;
                EXPECT_GT(copy.since, 0);
            }
        }
    });
    constexpr int requests = 20'000;
    std::uint64_t ticket = 0;
    for (int n = 0; n < requests; ++n) {
        ASSERT_NE(p.submit(0, make_job(n), &ticket), submit_result::rejected);
    }
    for (int i = 0; i < 2000 && runtime.served_.load() < requests; ++i) {
        std::this_thread::sleep_for(1ms);
    }
    done.store(true);
    reader.join();
    p.stop();
    EXPECT_EQ(runtime.served_.load(), requests);
    EXPECT_EQ(s.requests_served(), static_cast<std::uint64_t>(requests));
    EXPECT_EQ(s.durations().count(), static_cast<std::uint64_t>(requests));
    EXPECT_EQ(s.running(), std::nullopt);
    slot::running_copy after;
    EXPECT_FALSE(s.copy_running(after));
    // Not a correctness condition, but the reader should have caught some requests running.
    RecordProperty("running_reads", seen.load());
}

}  // namespace
}  // namespace spindle::worker
