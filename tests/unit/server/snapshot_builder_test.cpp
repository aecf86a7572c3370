#include "server/routing/snapshot_builder.hpp"

#include <gtest/gtest.h>

namespace spindle::server {
namespace {

config::worker_config worker(std::string file) {
    config::worker_config w;
    w.file = std::move(file);
    w.num = 2;
    w.name = "app";
    return w;
}

TEST(RestartRequired, NothingWhenOnlyReloadableSettingsChange) {
    config::server_config running;
    config::server_config next = running;
    next.limits.max_body_size = 1;
    next.max_wait_time = std::chrono::milliseconds(5);
    next.sites.front().root = "/srv/releases/2";
    next.sites.front().headers.push_back({});
    next.env.emplace_back("APP_ENV", "prod");
    next.workers.push_back(worker("/srv/worker.php"));
    EXPECT_TRUE(restart_required(running, next).empty());
}

TEST(RestartRequired, NamesEngineAndProcessWideSettings) {
    config::server_config running;
    config::server_config next = running;
    next.num_threads = running.num_threads + 4;
    next.php_ini.emplace_back("memory_limit", "1G");
    next.admin = config::listen_address{"127.0.0.1", 2020};
    EXPECT_EQ(restart_required(running, next),
              (std::vector<std::string>{"num_threads", "php_ini", "admin"}));
}

TEST(WorkerIdentity, FollowsTheResolvedFileAndWhatTheThreadsBootWith) {
    const config::worker_config a = worker("/srv/releases/1/worker.php");
    const std::string base = worker_identity(a, "/srv/releases/1", {});
    EXPECT_EQ(worker_identity(a, "/srv/releases/1", {}), base);

    // A release switched behind `current` resolves to another file: a new generation.
    EXPECT_NE(worker_identity(worker("/srv/releases/2/worker.php"), "/srv/releases/1", {}), base);
    EXPECT_NE(worker_identity(a, "/srv/releases/2", {}), base);

    config::worker_config more = a;
    more.num = 3;
    EXPECT_NE(worker_identity(more, "/srv/releases/1", {}), base);
    config::worker_config env = a;
    env.env.emplace_back("A", "1");
    EXPECT_NE(worker_identity(env, "/srv/releases/1", {}), base);
    EXPECT_NE(worker_identity(a, "/srv/releases/1", {{"A", "1"}}), base);
    config::worker_config recycled = a;
    recycled.max_requests = 500;
    EXPECT_NE(worker_identity(recycled, "/srv/releases/1", {}), base);

    // A site env and a worker env with the same entries are not the same worker.
    EXPECT_NE(worker_identity(env, "/srv/releases/1", {}),
              worker_identity(a, "/srv/releases/1", {{"A", "1"}}));

    // `match` and `watch` route and trigger; the threads do not boot differently.
    config::worker_config routed = a;
    routed.match.push_back("/api/*");
    EXPECT_EQ(worker_identity(routed, "/srv/releases/1", {}), base);
}

TEST(ServerSnapshot, SitesAtAnUnknownAddressIsEmpty) {
    server_snapshot snapshot;
    snapshot.sites.emplace_back();
    snapshot.addresses.push_back(
        {config::listen_address{"127.0.0.1", 80}, {&snapshot.sites[0]}, {}});
    EXPECT_EQ(snapshot.sites_at(config::listen_address{"127.0.0.1", 80}).size(), 1u);
    EXPECT_TRUE(snapshot.sites_at(config::listen_address{"127.0.0.1", 81}).empty());
}

}  // namespace
}  // namespace spindle::server
