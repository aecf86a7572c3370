#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace spindle::acme {

/// How long to wait before the next attempt after `failures` failed ones in a row (1 = the
/// first failure): `first` doubled per failure up to `most`, and never less than the CA's
/// Retry-After (a 429 rate limit, a 503), when it sent one.
std::chrono::seconds retry_delay(unsigned failures, std::chrono::seconds first,
                                 std::chrono::seconds most,
                                 std::optional<std::chrono::seconds> retry_after);

/// A Retry-After value (RFC 9110 section 10.2.3): delay-seconds or an HTTP date, as seconds
/// from now (0 for a date past); nullopt when empty or unreadable.
std::optional<std::chrono::seconds> parse_retry_after(const std::string& value);

}  // namespace spindle::acme
