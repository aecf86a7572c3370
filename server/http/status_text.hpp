#pragma once

#include <string>
#include <string_view>

namespace spindle::server {

/// The standard reason phrase for an HTTP status code ("Not Found"); "Unknown" if none.
std::string_view status_text(int status) noexcept;

/// The body of Spindle's own short answers: "404 Not Found: REASON\n"; empty when `reason` is
/// empty or the status has no body.
std::string short_answer_text(int status, std::string_view reason);

/// Whether responses with this status carry a body (RFC 9110 6.4.1: not 1xx, 204, 304).
constexpr bool status_has_body(int status) noexcept {
    return status >= 200 && status != 204 && status != 304;
}

}  // namespace spindle::server
