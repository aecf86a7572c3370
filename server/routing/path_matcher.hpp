#pragma once

#include <string_view>

namespace spindle::server {

/// Caddy's path matcher: `pattern` matches a normalised request path case-insensitively, with
/// '*' standing for any run of characters ("/api/*", "*.json", "/exact", "*").
bool path_matches(std::string_view pattern, std::string_view path) noexcept;

}  // namespace spindle::server
