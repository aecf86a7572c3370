#include "server/admin/supervisor_admin.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace spindle::server {
namespace {

TEST(MergeMetrics, EveryFamilyOnceWithEachProcessLabelled) {
    const std::string one =
        "# HELP up Up.\n# TYPE up gauge\nup 1\n"
        "# HELP hits Hits.\n# TYPE hits counter\nhits{code=\"2xx\"} 5\nhits{} 1\n";
    const std::string two =
        "# HELP up Up.\n# TYPE up gauge\nup 1\n"
        "# HELP hits Hits.\n# TYPE hits counter\nhits{code=\"2xx\"} 7\n";
    EXPECT_EQ(merge_metrics({{1, one}, {2, two}}),
              "# HELP up Up.\n# TYPE up gauge\nup{process=\"1\"} 1\nup{process=\"2\"} 1\n"
              "# HELP hits Hits.\n# TYPE hits counter\nhits{process=\"1\",code=\"2xx\"} 5\n"
              "hits{process=\"1\"} 1\nhits{process=\"2\",code=\"2xx\"} 7\n");
}

TEST(MergeMetrics, HistogramSamplesStayInTheirFamily) {
    const std::string text =
        "# HELP d D.\n# TYPE d histogram\nd_bucket{le=\"1\"} 2\nd_sum 3\n"
        "d_count 2\n";
    EXPECT_EQ(merge_metrics({{3, text}}),
              "# HELP d D.\n# TYPE d histogram\nd_bucket{process=\"3\",le=\"1\"} 2\n"
              "d_sum{process=\"3\"} 3\nd_count{process=\"3\"} 2\n");
}

TEST(MergeThreads, ListsEveryThreadWithItsProcessAndSumsTheCounts) {
    const std::string one = R"({"version":"v","ready":true,"draining":false,"total":2,"busy":1,
        "max_threads":2,"threads_added":0,"threads_removed":0,
        "groups":[{"name":"classic"}],"threads":[{"index":0},{"index":1}]})";
    const std::string two = R"({"version":"v","ready":false,"draining":false,"total":1,"busy":0,
        "max_threads":1,"threads_added":1,"threads_removed":0,
        "groups":[{"name":"classic"}],"threads":[{"index":0}]})";
    const nlohmann::json merged = nlohmann::json::parse(
        merge_threads({{1, one}, {2, two}}, {{1, 101, true, 0, "a"}, {2, 102, false, 1, "b"}}));
    EXPECT_EQ(merged["version"], "v");
    EXPECT_EQ(merged["total"], 3);
    EXPECT_EQ(merged["busy"], 1);
    EXPECT_EQ(merged["max_threads"], 3);
    EXPECT_EQ(merged["ready"], false);
    ASSERT_EQ(merged["threads"].size(), 3u);
    EXPECT_EQ(merged["threads"][2]["process"], 2);
    EXPECT_EQ(merged["groups"][1]["process"], 2);
    ASSERT_EQ(merged["processes"].size(), 2u);
    EXPECT_EQ(merged["processes"][1]["pid"], 102);
    EXPECT_EQ(merged["processes"][1]["deaths"], 1);
}

TEST(QueryProcess, NothingListeningIsNoAnswer) {
    EXPECT_FALSE(query_process("/nonexistent/spindle-admin.sock", process_query{"GET", "/", {}, {}},
                               std::chrono::milliseconds(200))
                     .has_value());
}

}  // namespace
}  // namespace spindle::server
