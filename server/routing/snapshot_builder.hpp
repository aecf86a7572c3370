#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/server_config.hpp"
#include "server/routing/server_snapshot.hpp"
#include "worker/pool.hpp"

namespace spindle::sapi {
class engine;
}

namespace spindle::server {

/// What build_snapshot() needs from its caller: how to make a pool group for a worker that
/// has no generation yet, and how to open a site's access log.
struct snapshot_hooks {
    /// Makes a group for `options` and returns its index: at start-up an entry of the pool's
    /// initial groups, at a reload a new generation booting on spare slots (pool::add_group).
    std::function<std::size_t(worker::group_options)> add_group;
    /// Opens the access log a site's `log` names (by the site's name); throws when it cannot.
    std::function<void(const std::string& site, const config::access_log_output&)> open_log;
    /// The server `env` the engine started with: a reload whose `env` differs lays its own
    /// over it for every site and worker (the engine's base environment cannot change).
    config::string_pairs startup_env;
};

/// A snapshot and the worker generations it made.
struct built_snapshot {
    std::shared_ptr<server_snapshot> snapshot;
    std::vector<std::size_t> new_groups;  ///< groups add_group made for it, to wait for
};

/// Turns a resolved configuration into the sites, routes and worker groups requests use.
/// Workers found in `running` (same name, same identity) keep their group; every other one
/// gets a new group from hooks.add_group. TLS certificates are not loaded here (listeners do,
/// http_server). Throws std::runtime_error (or config_error) when something cannot be built;
/// the groups hooks.add_group made before are the caller's to retire. Control or reload
/// thread.
built_snapshot build_snapshot(sapi::engine& engine, const config::server_config& config,
                              const std::vector<worker_generation>& running,
                              const snapshot_hooks& hooks);

/// Settings a running process cannot change, by name, that differ between `running` and
/// `next` (both resolved): a reload applies everything else and reports these.
std::vector<std::string> restart_required(const config::server_config& running,
                                          const config::server_config& next);

/// What a worker's threads are booted with, as one comparable string (worker_generation).
std::string worker_identity(const config::worker_config& worker, const std::string& root,
                            const config::string_pairs& site_env);

}  // namespace spindle::server
