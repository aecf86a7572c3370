#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace spindle::config {

/// Parses a duration written the Go/Caddy way: one or more <number><unit> parts such as "500ms",
/// "30s", "1m30s", "1.5s", "2h" or "1d", or a bare "0". Units: ns, us (or µs), ms, s, m, h, d
/// (24h), case-sensitive because "m" and "M" would otherwise be ambiguous. The result is
/// truncated to whole milliseconds. Throws config_error naming the value when it is empty,
/// negative, has no or an unknown unit, overflows, or is above zero but under 1ms (which would
/// otherwise silently turn into 0).
std::chrono::milliseconds parse_duration(std::string_view text);

/// Parses a byte size: a number ("1024", "1.5") with an optional unit, case-insensitive, with
/// optional spaces between them: B; K/KB, M/MB, G/GB, T/TB (powers of 1000); KiB, MiB, GiB, TiB
/// (powers of 1024). Fractions are truncated to whole bytes. Throws config_error naming the value
/// when it is empty, negative, has an unknown unit, surrounding whitespace, or overflows.
std::size_t parse_size(std::string_view text);

/// Writes a duration in the largest unit that divides it ("30s", "1500ms", "2h", "0"), in a
/// form parse_duration reads back to the same value. Negative values are not expected.
std::string format_duration(std::chrono::milliseconds duration);

/// Writes a size in the largest binary unit that divides it ("64KiB", "1MiB", "1000"), in a form
/// parse_size reads back to the same value.
std::string format_size(std::size_t bytes);

}  // namespace spindle::config
