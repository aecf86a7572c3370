#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/server_config.hpp"
#include "encode/compressed_cache.hpp"
#include "encode/encode_policy.hpp"
#include "server/http/forwarded_client.hpp"
#include "server/http/http_metrics.hpp"
#include "server/http/memory_budget.hpp"
#include "server/http/proxy_header.hpp"
#include "server/routing/router.hpp"

namespace spindle::worker {
class pool;
}
namespace spindle::acme {
class certificate_manager;
class challenge_store;
}  // namespace spindle::acme

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
    bool respond_after_php = false;  ///< respond rules answer only what PHP leaves (`order`)
    bool has_match = false;          ///< some worker has `match` patterns
    std::size_t env_index = 0;       ///< its environment (sapi::engine::add_environment)
    bool access_log = false;
    std::optional<encode::encode_policy> encode;  ///< response compression; nullopt: off
    /// X-Sendfile / X-Accel-Redirect directories; nullopt: those headers pass through.
    std::optional<config::x_sendfile_config> x_sendfile;
    /// Not 0: this entry only answers plain HTTP for an HTTPS site's hosts with a 308 to
    /// https://host[:port] (the site's redirect_to_https); nothing else of it is used.
    std::uint16_t redirect_https_port = 0;
};

struct server_snapshot;

/// What every connection of one server shares: the current configuration snapshot, the PHP
/// pool and a few counters. Built by the control thread before the first accept; its atomics
/// are updated by I/O threads.
struct http_context {
    /// `config` is the first snapshot's: what connections read from the context itself
    /// (memory total, forwarding rules) changes only with a restart.
    http_context(std::shared_ptr<const server_snapshot> first, worker::pool& p,
                 const config::server_config& config)
        : current(std::move(first)),
          pool(p),
          response_memory{config.limits.response_memory_total},
          forwarding{config.trusted_proxies},
          proxy_protocol(config.proxy_protocol
                             ? std::optional<proxy_protocol_rules>(*config.proxy_protocol)
                             : std::nullopt) {}

    /// The configuration a request that starts now uses (any thread). A request keeps what it
    /// took until it ends, so a reload never changes a request in flight.
    std::shared_ptr<const server_snapshot> snapshot() const noexcept {
        return current.load(std::memory_order_acquire);
    }
    /// Makes `next` the configuration of requests that start from now on (reload thread).
    void publish(std::shared_ptr<const server_snapshot> next) noexcept {
        current.store(std::move(next), std::memory_order_release);
    }

    /// Why the last reload was refused; null when it applied (or none ran). Any thread.
    std::shared_ptr<const std::string> last_reload_error() const noexcept {
        return reload_error.load(std::memory_order_acquire);
    }
    /// Reload thread.
    void set_reload_error(std::shared_ptr<const std::string> error) noexcept {
        reload_error.store(std::move(error), std::memory_order_release);
    }

    std::atomic<std::shared_ptr<const server_snapshot>> current;
    std::atomic<std::shared_ptr<const std::string>> reload_error;
    worker::pool& pool;
    std::atomic<std::uint64_t> next_request_id{1};
    std::atomic<std::size_t> connections{0};       ///< open connections
    std::atomic<std::size_t> active_responses{0};  ///< requests being answered now
    std::atomic<bool> stopping{false};             ///< graceful shutdown: no more keep-alive
    /// The grace period is over and the I/O threads stop: a PHP thread must no longer wait for
    /// a client, its response is abandoned (set by the control thread, read by PHP threads).
    std::atomic<bool> responses_abandoned{false};
    /// Bytes of PHP responses held in memory for every connection together
    /// (limits.response_memory_total); past it, responses spill to temporary files.
    memory_budget response_memory;
    http_metrics metrics{};  ///< responses, durations, 503 rejections
    /// trusted_proxies, ready for lookups (the ranges were checked with the configuration).
    const forwarding_rules forwarding;
    /// The proxy_protocol listener wrapper; nullopt: connections start with their protocol.
    const std::optional<proxy_protocol_rules> proxy_protocol;
    /// Bytes of compressed static files kept: a few thousand typical CSS/JS/HTML files.
    static constexpr std::size_t compressed_files_capacity = 64 * 1024 * 1024;
    /// Compressed static files of every site (`encode`), shared by the I/O threads.
    encode::compressed_cache compressed_files{compressed_files_capacity};
    /// Managed certificates (automatic HTTPS, tls internal): expiry gauges for /metrics and
    /// the HTTP-01 answers plain HTTP gives before any routing. Null when no site has one.
    const acme::certificate_manager* certificates = nullptr;
    const acme::challenge_store* acme_challenges = nullptr;
};

}  // namespace spindle::server
