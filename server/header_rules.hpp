#pragma once

#include <string>
#include <vector>

#include "config/server_config.hpp"

namespace spindle::server {

/// Applies a site's `header` rules to a serialised response head ("HTTP/1.1 200 OK\r\n" ...
/// "\r\n\r\n"): set replaces every field of that name, add appends one, remove drops them.
/// Names compare case-insensitively. Configuration refuses rules on the framing fields
/// (Content-Length, Transfer-Encoding, Connection), so framing stays ours. I/O or PHP thread.
void apply_header_rules(std::string& head, const std::vector<config::header_rule>& rules);

}  // namespace spindle::server
