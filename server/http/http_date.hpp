#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace spindle::server {

/// Formats `t` as an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT").
std::string format_http_date(std::time_t t);

/// Parses an IMF-fixdate (the only form senders may generate); nullopt if it is not one.
std::optional<std::time_t> parse_http_date(std::string_view text);

/// The current time as an IMF-fixdate for the Date header, formatted at most once per second
/// per thread. The view is valid until the next call on the same thread.
std::string_view current_http_date();

}  // namespace spindle::server
