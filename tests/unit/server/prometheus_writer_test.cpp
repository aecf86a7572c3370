#include "server/admin/prometheus_writer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>
#include <vector>

namespace spindle::server {
namespace {

using namespace std::chrono_literals;
using metric_type = prometheus_writer::metric_type;

TEST(PrometheusWriter, FamilyHasHelpTypeAndSamples) {
    prometheus_writer w;
    w.family("frankenphp_busy_threads", metric_type::gauge, "Number of busy PHP threads");
    w.sample("frankenphp_busy_threads", {}, std::uint64_t{3});
    w.family("spindle_http_requests_total", metric_type::counter, "Responses");
    w.sample("spindle_http_requests_total", {{"code", "2xx"}}, std::uint64_t{12});
    w.sample("spindle_http_requests_total", {{"code", "5xx"}, {"site", "a"}}, 0.5);
    EXPECT_EQ(w.text(),
              "# HELP frankenphp_busy_threads Number of busy PHP threads\n"
              "# TYPE frankenphp_busy_threads gauge\n"
              "frankenphp_busy_threads 3\n"
              "# HELP spindle_http_requests_total Responses\n"
              "# TYPE spindle_http_requests_total counter\n"
              "spindle_http_requests_total{code=\"2xx\"} 12\n"
              "spindle_http_requests_total{code=\"5xx\",site=\"a\"} 0.5\n");
}

TEST(PrometheusWriter, EscapesLabelValuesAndHelp) {
    prometheus_writer w;
    w.family("m", metric_type::gauge, "a \\ b\nc \"quoted\"");
    w.sample("m", {{"worker", "C:\\app\\\"x\"\nnext"}}, std::uint64_t{1});
    // Help: backslash and line feed; label values: those and the double quote.
    EXPECT_EQ(w.text(),
              "# HELP m a \\\\ b\\nc \"quoted\"\n"
              "# TYPE m gauge\n"
              "m{worker=\"C:\\\\app\\\\\\\"x\\\"\\nnext\"} 1\n");
}

TEST(PrometheusWriter, HistogramIsCumulativeWithInfSumAndCount) {
    worker::duration_histogram h;
    h.record(100us);  // 0.0005 bucket
    h.record(700us);  // 0.001
    h.record(1ms);    // 0.001: "less than or equal"
    h.record(3s);     // 5
    h.record(60s);    // above every bound
    prometheus_writer w;
    w.family("d", metric_type::histogram, "durations");
    w.histogram("d", {{"worker", "w"}}, h.read());
    const std::string& text = w.text();
    EXPECT_NE(text.find("d_bucket{worker=\"w\",le=\"0.0005\"} 1\n"), std::string::npos) << text;
    EXPECT_NE(text.find("d_bucket{worker=\"w\",le=\"0.001\"} 3\n"), std::string::npos) << text;
    EXPECT_NE(text.find("d_bucket{worker=\"w\",le=\"2.5\"} 3\n"), std::string::npos) << text;
    EXPECT_NE(text.find("d_bucket{worker=\"w\",le=\"5\"} 4\n"), std::string::npos) << text;
    EXPECT_NE(text.find("d_bucket{worker=\"w\",le=\"10\"} 4\n"), std::string::npos) << text;
    EXPECT_NE(text.find("d_bucket{worker=\"w\",le=\"+Inf\"} 5\n"), std::string::npos) << text;
    EXPECT_NE(text.find("d_sum{worker=\"w\"} 63.0018\n"), std::string::npos) << text;
    EXPECT_NE(text.find("d_count{worker=\"w\"} 5\n"), std::string::npos) << text;
    // One line per bound, +Inf, sum and count, after HELP and TYPE.
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'),
              static_cast<long>(2 + worker::duration_bounds.size() + 1 + 2));
}

TEST(PrometheusWriter, HistogramWithoutLabelsHasOnlyLe) {
    prometheus_writer w;
    w.histogram("d", {}, worker::histogram_counts{});
    EXPECT_EQ(w.text().substr(0, 24), "d_bucket{le=\"0.0005\"} 0\n");
    EXPECT_NE(w.text().find("d_sum 0\nd_count 0\n"), std::string::npos) << w.text();
}

TEST(FormatMetricValue, PlainDecimalsSpecialValuesAndExponents) {
    EXPECT_EQ(format_metric_value(0), "0");
    EXPECT_EQ(format_metric_value(3), "3");
    EXPECT_EQ(format_metric_value(-2.5), "-2.5");
    EXPECT_EQ(format_metric_value(0.0005), "0.0005");
    EXPECT_EQ(format_metric_value(1796224370.9), "1796224370.9");
    EXPECT_EQ(format_metric_value(1e-9), "1e-09");
    EXPECT_EQ(format_metric_value(std::numeric_limits<double>::infinity()), "+Inf");
    EXPECT_EQ(format_metric_value(-std::numeric_limits<double>::infinity()), "-Inf");
    EXPECT_EQ(format_metric_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(DurationHistogram, CountsFromManyThreadsWithoutLoss) {
    worker::duration_histogram h;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&h] {
            for (int i = 0; i < 10'000; ++i) {
                h.record(2ms);
            }
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    const worker::histogram_counts counts = h.read();
    EXPECT_EQ(counts.count(), 40'000u);
    EXPECT_EQ(counts.buckets[2], 40'000u);  // le="0.0025"
    EXPECT_EQ(counts.sum_nanoseconds, 40'000ull * 2'000'000ull);
    EXPECT_DOUBLE_EQ(counts.sum_seconds(), 80.0);
}

TEST(DurationHistogram, NegativeDurationsCountAsZero) {
    worker::duration_histogram h;
    h.record(-5ms);
    EXPECT_EQ(h.read().buckets[0], 1u);
    EXPECT_EQ(h.read().sum_nanoseconds, 0u);
}

}  // namespace
}  // namespace spindle::server
