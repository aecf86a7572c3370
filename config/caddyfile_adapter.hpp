#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "config/caddyfile_lexer.hpp"
#include "config/json_config.hpp"

namespace spindle::config {

/// A Caddyfile turned into the configuration document (config/json_config.hpp).
struct adapted_caddyfile {
    json document;
    source_map sources;                 ///< JSON pointer -> the directive that wrote it
    std::vector<std::string> warnings;  ///< "file:line: ..." for directives with no effect
};

/// Adapts the Caddyfile subset documented in docs/caddyfile.md: the global options block
/// (frankenphp, servers, log, admin, grace_period, ...) and site blocks (root, php_server, php,
/// file_server, header, respond, encode, try_files, bind, log). Every directive or option it
/// does not know is an error naming it with file:line; so is a directive it knows but cannot
/// honour yet (tls). Values are checked later, by config_from_json(), whose errors still name
/// file:line through `sources`. Throws config_error.
/// `list_folder` lists the folders of glob imports (caddyfile::parse).
adapted_caddyfile adapt_caddyfile(std::string_view text, const std::string& file,
                                  const caddyfile::env_lookup& env,
                                  const std::function<std::string(const std::string&)>& read_file,
                                  const caddyfile::list_function& list_folder = {});

}  // namespace spindle::config
