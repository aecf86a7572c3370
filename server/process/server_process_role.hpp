#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace spindle::server {

/// What a server process the supervisor started (server/process/supervisor.hpp) gets from it: which
/// process it is, the listening sockets to accept on instead of binding its own, and where
/// its private admin endpoint listens for the supervisor.
///
/// It travels in three environment variables rather than a command-line flag: the child runs
/// the user's own command line again unchanged (php-server flags or `run --config FILE`), so
/// it reads the same configuration, and take_from_environment() removes the variables before
/// the PHP engine copies the environment, so scripts never see them.
struct server_process_role {
    std::size_t index = 0;   ///< 1 .. processes, stable across restarts of that place
    pid_t supervisor = 0;    ///< the parent; the child stops when it goes away
    std::string admin_path;  ///< the Unix socket the child's admin endpoint listens on
    /// Inherited listening descriptors, by the configured address they were opened for
    /// (config::to_string of the listen_address).
    std::vector<std::pair<std::string, int>> sockets;

    /// The environment entries ("NAME=value") that hand this role to a child.
    std::vector<std::string> environment() const;

    /// The role handed to this process, if the supervisor started it; removes the variables
    /// from the environment. Control thread, at start, before the engine exists. Throws
    /// std::runtime_error when they are malformed.
    static std::optional<server_process_role> take_from_environment();

    /// Takes the inherited descriptor for `address` (each is taken once); nullopt if the
    /// supervisor opened none for it.
    std::optional<int> take_socket(const std::string& address);
};

}  // namespace spindle::server
