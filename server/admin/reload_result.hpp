#pragma once

#include <string>
#include <vector>

namespace spindle::server {

/// What one reload did, for its log line, `spindle reload`, POST /load and a systemd notifier.
struct reload_result {
    bool applied = false;  ///< false: nothing changed, `error` says why
    bool invalid = false;  ///< not applied because the configuration is wrong (file:line)
    std::string error;     ///< the configuration error (file:line) or the failure
    /// Settings that differ but need a restart; everything else was applied.
    std::vector<std::string> restart_required;
    std::vector<std::string> workers_started;  ///< workers that got a new generation
    std::vector<std::string> listeners_added;  ///< addresses opened
    std::vector<std::string> listeners_removed;

    /// The answer as JSON ({"applied":…,"error":…,…}).
    std::string to_json() const;
};

}  // namespace spindle::server
