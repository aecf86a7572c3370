#pragma once

#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "config/config_error.hpp"
#include "config/server_config.hpp"

namespace spindle::config {

/// The configuration document: every front end (Caddyfile, JSON file) produces one, and
/// config_from_json() is the only way into server_config. Ordered so `spindle adapt` prints
/// settings in the order they were written.
using json = nlohmann::ordered_json;

/// Where each part of a document was written: JSON pointer -> file:line. The Caddyfile adapter
/// fills it; a JSON file has none, and errors then name the pointer.
using source_map = std::map<std::string, source_location>;

/// `pointer` + "/" + key, the key escaped as RFC 6901 says ("~" -> "~0", "/" -> "~1").
std::string pointer_child(const std::string& pointer, std::string_view key);

/// The error for a setting: "file:line: message" when `where` has a line, "file: /pointer:
/// message" when only the pointer is known, the bare message for command-line settings.
config_error located_error(const source_location& where, const std::string& message);

/// Checks a configuration document and turns it into the model: unknown keys, wrong types and
/// bad values (durations, sizes, addresses, counts) are errors naming the setting and, through
/// `sources`, the file:line it came from. Does not touch the filesystem (see resolve_config).
/// `file` names the document for messages. Throws config_error.
server_config config_from_json(const json& document, const std::string& file,
                               const source_map& sources = {});

/// Reads a JSON configuration file; a syntax error names the file, line and column.
json read_json_file(const std::string& text, const std::string& file);

}  // namespace spindle::config
