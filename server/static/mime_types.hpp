#pragma once

#include <string_view>

namespace spindle::server {

/// The Content-Type for a file, from the extension of the last path segment (case-insensitive).
/// Text types carry "; charset=utf-8"; unknown or missing extensions give
/// "application/octet-stream". Returns a view of static storage; allocates nothing.
std::string_view mime_type_for(std::string_view path);

}  // namespace spindle::server
