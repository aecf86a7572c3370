#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "config/server_config.hpp"
#include "server/http_metrics.hpp"
#include "server/router.hpp"

namespace spindle::worker {
class pool;
}

namespace spindle::server {

/// A worker script and the pool group whose slots run it.
struct worker_route {
    std::string file;                ///< absolute path; requests resolving to it go to `group`
    std::string script_name;         ///< its URL path (SCRIPT_NAME of `match`ed requests)
    std::vector<std::string> match;  ///< paths sent to it whatever they resolve to
    std::size_t group = 0;
};

/// How one site answers: built from a config::site_config by the control thread before the
/// first accept, then read-only.
struct site_context {
    std::string name;                ///< for logs: the site's first address or host
    std::vector<std::string> hosts;  ///< Host values it answers (lower case); empty: any
    router_options router;
    /// `root /path/* DIR` roots, most specific pattern first; `router` serves the other paths.
    std::vector<path_router> path_routers;
    std::vector<worker_route> workers;  ///< group 0 (classic) serves every other script
    std::vector<config::header_rule> headers;
    std::vector<config::respond_rule> responds;
    bool has_match = false;     ///< some worker has `match` patterns
    std::size_t env_index = 0;  ///< its environment (sapi::engine::add_environment)
    bool access_log = false;
};

/// What every connection of one server shares: configuration, the sites, the PHP pool and a
/// few counters. Built by the control thread before the first accept; its plain fields are
/// then read-only, its atomics updated by I/O threads.
struct http_context {
    const config::server_config& config;
    std::vector<site_context> sites;
    worker::pool& pool;
    std::atomic<std::uint64_t> next_request_id{1};
    std::atomic<std::size_t> connections{0};       ///< open connections
    std::atomic<std::size_t> active_responses{0};  ///< requests being answered now
    std::atomic<bool> stopping{false};             ///< graceful shutdown: no more keep-alive
    http_metrics metrics{};                        ///< responses, durations, 503 rejections
};

}  // namespace spindle::server
