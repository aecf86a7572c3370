#pragma once

#include <string>
#include <vector>

#include "config/server_config.hpp"
#include "server/http/response_connection.hpp"

namespace spindle::server {

/// Applies a site's `header` rules to a serialised response head ("HTTP/1.1 200 OK\r\n" ...
/// "\r\n\r\n"): set replaces every field of that name, add appends one, remove drops them.
/// Names compare case-insensitively. Configuration refuses rules on the framing fields
/// (Content-Length, Transfer-Encoding, Connection), so framing stays ours. I/O or PHP thread.
void apply_header_rules(std::string& head, const std::vector<config::header_rule>& rules);

/// The same rules on a head kept as fields (HTTP/2); added names are written in lower case.
void apply_header_rules(std::vector<head_field>& fields,
                        const std::vector<config::header_rule>& rules);

}  // namespace spindle::server
