#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "config/server_config.hpp"
#include "server/router.hpp"

namespace spindle::worker {
class pool;
}

namespace spindle::server {

/// A worker script and the pool group whose slots run it.
struct worker_route {
    std::string file;  ///< absolute path; requests resolving to it go to `group`
    std::size_t group = 0;
};

/// What every connection of one server shares: configuration, routing, the PHP pool and a few
/// counters. Built by the control thread before the first accept; its plain fields are then
/// read-only, its atomics updated by I/O threads.
struct http_context {
    const config::server_config& config;
    router_options router;
    worker::pool& pool;
    std::vector<worker_route> workers;  ///< group 0 (classic) serves every other script
    std::atomic<std::uint64_t> next_request_id{1};
    std::atomic<std::size_t> connections{0};       ///< open connections
    std::atomic<std::size_t> active_responses{0};  ///< requests being answered now
    std::atomic<bool> stopping{false};             ///< graceful shutdown: no more keep-alive
};

}  // namespace spindle::server
