#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/server_config.hpp"
#include "server/routing/http_context.hpp"

namespace spindle::server {

class tls_certificate_store;

/// One worker as the running configuration has it: what makes it the same worker across a
/// reload, and the pool group (generation) that serves it now.
struct worker_generation {
    std::string name;  ///< unique in the server, for logs and metrics (the file by default)
    /// Where the configuration declares it ("global 0", "site 1 worker 0"): a new generation
    /// takes over the queue of the old one with the same place, whatever its name (a default
    /// name follows the file, which changes with each release).
    std::string place;
    /// Everything its threads were booted with: when any of it changes, a reload boots a new
    /// generation. The file is the resolved path, so a release switched behind a symlink
    /// counts as a change.
    std::string identity;
    std::size_t group = 0;  ///< worker::pool group index
};

/// The sites listening on one address, and its certificates when it speaks HTTPS.
struct address_sites {
    config::listen_address address;
    std::vector<const site_context*> sites;      ///< point into server_snapshot::sites
    std::shared_ptr<tls_certificate_store> tls;  ///< null for plain HTTP
};

/// Everything derived from one configuration that requests read: the configuration itself,
/// the sites with their routes, header rules, env and limits, the addresses and which sites
/// answer on each, and which pool group serves each worker. Built whole by build_snapshot()
/// (control or reload thread), then immutable: published through http_context::publish() and
/// taken by each request as it starts, so a request finishes on the configuration it began
/// with, and a reload only ever swaps one pointer.
struct server_snapshot {
    server_snapshot() = default;
    server_snapshot(const server_snapshot&) = delete;
    server_snapshot& operator=(const server_snapshot&) = delete;

    config::server_config config;  ///< resolved (roots canonical, worker files absolute)
    /// The same before resolve_config(): a worker restart resolves it again, following a
    /// `current` symlink to the release it names now.
    config::server_config source;
    /// The configuration as the JSON document it was read as (GET /config); null when it
    /// came from command-line flags.
    nlohmann::json document;
    /// Never resized once built: address_sites point into it.
    std::vector<site_context> sites;
    std::vector<address_sites> addresses;
    std::vector<worker_generation> workers;

    /// The sites answering on `address`; empty when it is not (or no longer) configured.
    const std::vector<const site_context*>& sites_at(const config::listen_address& address) const;
};

}  // namespace spindle::server
