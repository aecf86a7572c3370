#pragma once

#include <string>
#include <vector>

#include "config/json_config.hpp"

namespace spindle::config {

/// A configuration file turned into the one document every front end produces.
struct loaded_config {
    json document;
    source_map sources;                 ///< where the Caddyfile wrote each part; empty for JSON
    std::vector<std::string> warnings;  ///< accepted settings with no effect, "file:line: ..."
};

/// Reads `path` with the named adapter ("caddyfile" or "json"). Caddyfile placeholders read
/// the process environment; imports are read relative to the importing file. Throws
/// config_error naming file:line. Control thread, at start-up.
loaded_config load_config_file(const std::string& path, const std::string& adapter);

/// The same for a configuration already read (the admin API's POST /load): `path` names it in
/// errors, and Caddyfile imports are read relative to it. Control or reload thread.
loaded_config load_config_text(const std::string& text, const std::string& path,
                               const std::string& adapter);

}  // namespace spindle::config
