#pragma once

#include <string_view>

namespace spindle::server {

/// The standard reason phrase for an HTTP status code ("Not Found"); "Unknown" if none.
std::string_view status_text(int status) noexcept;

/// Whether responses with this status carry a body (RFC 9110 6.4.1: not 1xx, 204, 304).
constexpr bool status_has_body(int status) noexcept {
    return status >= 200 && status != 204 && status != 304;
}

}  // namespace spindle::server
