#include "server/admin/admin_views.hpp"

#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "sapi/engine.hpp"
#include "worker/pool.hpp"

namespace spindle::server {
namespace {

using namespace std::chrono_literals;

// A runtime without PHP: each request blocks until the test releases it. With
// `fail_boots`, every boot fails and the slot keeps restarting (a worker that never boots).
class gated_runtime final : public worker::slot_runtime {
  public:
    explicit gated_runtime(bool fail_boots = false) : fail_boots_(fail_boots) {}

    void run_thread(std::size_t index, worker::pool& host) override {
        if (fail_boots_) {
            host.settle_startup(index);
            while (host.restart(index, 5ms, worker::restart_reason::boot_failure)) {
            }
            return;
        }
        while (worker::job j = host.next_job(index)) {
            std::unique_lock lock(mutex_);
            ++running_;
            changed_.notify_all();
            changed_.wait(lock, [&] { return released_ > 0 || release_all_; });
            if (!release_all_) {
                --released_;
            }
            --running_;
        }
    }
    void release_one() {
        std::lock_guard lock(mutex_);
        ++released_;
        changed_.notify_all();
    }
    void release_all() {
        std::lock_guard lock(mutex_);
        release_all_ = true;
        changed_.notify_all();
    }
    void wait_running(int count) {
        std::unique_lock lock(mutex_);
        ASSERT_TRUE(changed_.wait_for(lock, 5s, [&] { return running_ >= count; }));
    }

  private:
    const bool fail_boots_;
    std::mutex mutex_;
    std::condition_variable changed_;
    int running_ = 0;
    int released_ = 0;
    bool release_all_ = false;
};

worker::job make_job(std::string method, std::string uri) {
    auto r = std::make_shared<sapi::request>();
    r->method = std::move(method);
    r->uri = std::move(uri);
    r->remote_addr = "203.0.113.5";
    return r;
}

// The samples of a Prometheus text, "name{labels}" -> value; checks every line on the way.
std::map<std::string, double> parse_samples(const std::string& text) {
    std::map<std::string, double> samples;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("# HELP ") || line.starts_with("# TYPE ")) {
            continue;
        }
        const std::size_t space = line.rfind(' ');
        EXPECT_NE(space, std::string::npos) << line;
        samples[line.substr(0, space)] = std::stod(line.substr(space + 1));
    }
    return samples;
}

class AdminViewsTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        if (!spdlog::get("worker")) {
            spdlog::register_logger(std::make_shared<spdlog::logger>(
                "worker", std::make_shared<spdlog::sinks::null_sink_mt>()));
        }
    }
};

TEST_F(AdminViewsTest, MetricsCountWhatThePoolDid) {
    gated_runtime classic;
    gated_runtime app;
    worker::pool p(worker::pool_options{{worker::group_options{"classic", 1, unowned(classic)},
                                         worker::group_options{"app", 2, unowned(app)}},
                                        8});
    ASSERT_TRUE(p.start());
    std::uint64_t ticket = 0;
    ASSERT_EQ(p.submit(1, make_job("GET", "/a"), &ticket), worker::submit_result::assigned);
    app.wait_running(1);
    app.release_one();
    // The first request is over once its slot is back to ready.
    for (int i = 0; i < 1000 && p.stats().busy > 0; ++i) {
        std::this_thread::sleep_for(1ms);
    }
    ASSERT_EQ(p.stats().busy, 0u);
    ASSERT_EQ(p.submit(1, make_job("GET", "/b"), &ticket), worker::submit_result::assigned);
    ASSERT_EQ(p.submit(0, make_job("GET", "/c"), &ticket), worker::submit_result::assigned);
    app.wait_running(1);
    classic.wait_running(1);

    http_metrics http;
    http.record_response(200, 1ms);
    http.record_response(404, 2ms);
    http.record_rejection(rejection::timeout);
    process_sample process;
    process.resident_bytes = 4096;
    const auto samples = parse_samples(metrics_text(p, http.read(), 7, process));

    EXPECT_EQ(samples.at("frankenphp_total_threads"), 3);
    // As FrankenPHP counts them: the busy classic thread and both running worker threads,
    // the idle one included; Spindle's own view counts the two serving a request.
    EXPECT_EQ(samples.at("frankenphp_busy_threads"), 3);
    EXPECT_EQ(samples.at("spindle_busy_threads"), 2);
    EXPECT_EQ(samples.at("frankenphp_queue_depth"), 0);
    EXPECT_EQ(samples.at("frankenphp_total_workers{worker=\"app\"}"), 2);
    EXPECT_EQ(samples.at("frankenphp_busy_workers{worker=\"app\"}"), 1);
    EXPECT_EQ(samples.at("frankenphp_ready_workers{worker=\"app\"}"), 2);
    EXPECT_EQ(samples.at("frankenphp_worker_request_count{worker=\"app\"}"), 1);
    EXPECT_EQ(samples.at("frankenphp_worker_crashes{worker=\"app\"}"), 0);
    EXPECT_EQ(samples.at("spindle_worker_request_duration_seconds_count{worker=\"app\"}"), 1);
    EXPECT_EQ(samples.count("frankenphp_total_workers{worker=\"classic\"}"), 0u);
    EXPECT_EQ(samples.at("spindle_http_requests_total{code=\"2xx\"}"), 1);
    EXPECT_EQ(samples.at("spindle_http_requests_total{code=\"4xx\"}"), 1);
    EXPECT_EQ(samples.at("spindle_http_requests_total{code=\"5xx\"}"), 0);
    EXPECT_EQ(samples.at("spindle_http_request_duration_seconds_count"), 2);
    EXPECT_DOUBLE_EQ(samples.at("spindle_http_request_duration_seconds_sum"), 0.003);
    EXPECT_EQ(samples.at("spindle_queue_rejections_total{reason=\"timeout\"}"), 1);
    EXPECT_EQ(samples.at("spindle_connections"), 7);
    EXPECT_EQ(samples.at("process_resident_memory_bytes"), 4096);
    EXPECT_EQ(samples.count("process_cpu_seconds_total"), 0u);  // not read: left out
    EXPECT_EQ(samples.at(std::string("spindle_build_info{version=\"") + SPINDLE_VERSION +
                         "\",php_version=\"" + sapi::engine::php_version() + "\"}"),
              1);

    // The running requests show in /threads with their method, client and URI.
    const auto document = nlohmann::json::parse(threads_json(p, false, 12.5));
    EXPECT_EQ(document["time"], 12.5);
    EXPECT_EQ(document["version"], SPINDLE_VERSION);
    EXPECT_EQ(document["php_version"], sapi::engine::php_version());
    EXPECT_EQ(document["ready"], true);
    EXPECT_EQ(document["total"], 3);
    EXPECT_EQ(document["busy"], 2);
    ASSERT_EQ(document["threads"].size(), 3u);
    EXPECT_EQ(document["threads"][0]["group"], "classic");
    EXPECT_EQ(document["threads"][0]["worker"], false);
    EXPECT_EQ(document["threads"][0]["state"], "busy");
    EXPECT_EQ(document["threads"][0]["request"]["method"], "GET");
    EXPECT_EQ(document["threads"][0]["request"]["uri"], "/c");
    EXPECT_EQ(document["threads"][0]["request"]["client"], "203.0.113.5");
    EXPECT_GE(document["threads"][0]["request"]["running_ms"].get<double>(), 0.0);
    EXPECT_EQ(document["threads"][1]["group"], "app");
    EXPECT_EQ(document["threads"][1]["boots"], 1);
    int running_b = 0;
    for (const auto& t : document["threads"]) {
        running_b += !t["request"].is_null() && t["request"]["uri"] == "/b" ? 1 : 0;
    }
    EXPECT_EQ(running_b, 1);

    classic.release_all();
    app.release_all();
    p.stop();
    EXPECT_FALSE(check_readiness(p, true).ready);
}

TEST_F(AdminViewsTest, ReadinessWaitsForEveryGroupAndNamesTheOneMissing) {
    gated_runtime classic;
    gated_runtime never(true);
    worker::pool p(worker::pool_options{{worker::group_options{"classic", 1, unowned(classic)},
                                         worker::group_options{"/broken.php", 1, unowned(never)}},
                                        8});
    ASSERT_TRUE(p.start());
    const readiness state = check_readiness(p, false);
    EXPECT_FALSE(state.ready);
    EXPECT_EQ(state.reason, "starting: worker /broken.php not booted yet");
    // start() returns once the failing worker settled, which comes before its first failed
    // boot is counted: wait for that count.
    auto samples = parse_samples(metrics_text(p, {}, 0, {}));
    for (int i = 0; i < 500 && samples.at("frankenphp_worker_crashes{worker=\"/broken.php\"}") < 1;
         ++i) {
        std::this_thread::sleep_for(10ms);
        samples = parse_samples(metrics_text(p, {}, 0, {}));
    }
    EXPECT_EQ(samples.at("frankenphp_ready_workers{worker=\"/broken.php\"}"), 0);
    EXPECT_GE(samples.at("frankenphp_worker_crashes{worker=\"/broken.php\"}"), 1);
    EXPECT_EQ(check_readiness(p, true).reason, "draining: the server is shutting down");
    classic.release_all();
    p.stop();
}

TEST_F(AdminViewsTest, ThreadsJsonReplacesBytesThatAreNotUtf8) {
    gated_runtime classic;
    worker::pool p(
        worker::pool_options{{worker::group_options{"classic", 1, unowned(classic)}}, 8});
    ASSERT_TRUE(p.start());
    std::uint64_t ticket = 0;
    ASSERT_EQ(p.submit(0, make_job("GET", "/caf\xe9?q=\"<x>\""), &ticket),
              worker::submit_result::assigned);
    classic.wait_running(1);
    const auto document = nlohmann::json::parse(threads_json(p, false, 0));
    EXPECT_EQ(document["threads"][0]["request"]["uri"], "/caf\xef\xbf\xbd?q=\"<x>\"");
    classic.release_all();
    p.stop();
}

TEST(AdminBacktracePath, ReadsTheThreadNumber) {
    EXPECT_EQ(backtrace_thread("/threads/0/backtrace"), 0u);
    EXPECT_EQ(backtrace_thread("/threads/17/backtrace"), 17u);
    EXPECT_EQ(backtrace_thread("/threads/999999999/backtrace"), 999999999u);
}

TEST(AdminBacktracePath, RefusesEverythingElse) {
    for (const char* path :
         {"/threads", "/threads/", "/threads//backtrace", "/threads/x/backtrace",
          "/threads/-1/backtrace", "/threads/+1/backtrace", "/threads/01/backtrace",
          "/threads/1/backtrace/", "/threads/1/backtraces", "/threads/1",
          "/threads/1000000000/backtrace", "/thread/1/backtrace", "threads/1/backtrace"}) {
        EXPECT_EQ(backtrace_thread(path), std::nullopt) << path;
    }
}

}  // namespace
}  // namespace spindle::server
