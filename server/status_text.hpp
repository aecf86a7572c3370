#pragma once

#include <string_view>

namespace spindle::server {

/// The standard reason phrase for an HTTP status code ("Not Found"); "Unknown" if none.
std::string_view status_text(int status) noexcept;

}  // namespace spindle::server
