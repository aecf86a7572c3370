#include "config/units.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "config/config_error.hpp"

namespace spindle::config {

namespace {

/// A non-negative decimal number as read from the text, kept exact: whole + fraction / scale.
struct decimal {
    std::uint64_t whole = 0;
    std::uint64_t fraction = 0;
    std::uint64_t scale = 1;
};

/// Fraction digits beyond this are dropped; 9 keeps even "1.000000001d" well below 1ms of error
/// while (multiplier % scale) * fraction still fits in 64 bits.
constexpr int max_fraction_digits = 9;

[[noreturn]] void fail(std::string_view what, std::string_view text, std::string_view why) {
    throw config_error("invalid " + std::string(what) + " \"" + std::string(text) +
                       "\": " + std::string(why));
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

/// Reads [0-9]*(\.[0-9]*)? with at least one digit from the front of rest and consumes it.
/// Returns nullopt when there is no digit; throws when the whole part overflows.
std::optional<decimal> read_decimal(std::string_view& rest, std::string_view what,
                                    std::string_view text) {
    decimal number;
    bool has_digit = false;
    std::size_t i = 0;
    for (; i < rest.size() && is_digit(rest[i]); ++i) {
        const auto digit = static_cast<std::uint64_t>(rest[i] - '0');
        if (number.whole > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
            fail(what, text, "too large");
        }
        number.whole = number.whole * 10 + digit;
        has_digit = true;
    }
    if (i < rest.size() && rest[i] == '.') {
        int kept = 0;
        for (++i; i < rest.size() && is_digit(rest[i]); ++i) {
            has_digit = true;
            if (kept < max_fraction_digits) {
                number.fraction = number.fraction * 10 + static_cast<std::uint64_t>(rest[i] - '0');
                number.scale *= 10;
                ++kept;
            }
        }
    }
    if (!has_digit) {
        return std::nullopt;
    }
    rest.remove_prefix(i);
    return number;
}

/// floor(number * multiplier) computed exactly, or nullopt when it exceeds limit.
std::optional<std::uint64_t> multiply(const decimal& number, std::uint64_t multiplier,
                                      std::uint64_t limit) {
    if (number.whole > limit / multiplier) {
        return std::nullopt;
    }
    const std::uint64_t whole_part = number.whole * multiplier;
    // multiplier = q * scale + r, so multiplier * fraction / scale = q * fraction +
    // r * fraction / scale; both products stay below 2^64 (fraction < scale <= 10^9).
    const std::uint64_t fraction_part = multiplier / number.scale * number.fraction +
                                        multiplier % number.scale * number.fraction / number.scale;
    if (fraction_part > limit - whole_part) {
        return std::nullopt;
    }
    return whole_part + fraction_part;
}

struct unit {
    std::string_view name;
    std::uint64_t multiplier;
};

constexpr std::uint64_t nanoseconds_per_millisecond = 1'000'000;

constexpr std::array<unit, 9> duration_units{{
    {"ns", 1},
    {"us", 1'000},
    {"\xC2\xB5s", 1'000},  // U+00B5 MICRO SIGN, as Go accepts it
    {"\xCE\xBCs", 1'000},  // U+03BC GREEK SMALL LETTER MU, as Go accepts it
    {"ms", nanoseconds_per_millisecond},
    {"s", 1'000'000'000},
    {"m", 60'000'000'000},
    {"h", 3'600'000'000'000},
    {"d", 86'400'000'000'000},
}};

constexpr std::array<unit, 14> size_units{{
    {"", 1},
    {"b", 1},
    {"k", 1'000},
    {"kb", 1'000},
    {"kib", std::uint64_t{1} << 10},
    {"m", 1'000'000},
    {"mb", 1'000'000},
    {"mib", std::uint64_t{1} << 20},
    {"g", 1'000'000'000},
    {"gb", 1'000'000'000},
    {"gib", std::uint64_t{1} << 30},
    {"t", 1'000'000'000'000},
    {"tb", 1'000'000'000'000},
    {"tib", std::uint64_t{1} << 40},
}};

std::optional<std::uint64_t> find_unit(std::string_view name, const auto& units) {
    for (const unit& candidate : units) {
        if (candidate.name == name) {
            return candidate.multiplier;
        }
    }
    return std::nullopt;
}

bool is_space(char c) {
    return c == ' ' || c == '\t';
}

}  // namespace

std::chrono::milliseconds parse_duration(std::string_view text) {
    constexpr std::string_view what = "duration";
    if (text.empty()) {
        fail(what, text, "empty value");
    }
    if (text.front() == '-') {
        fail(what, text, "negative durations are not allowed");
    }
    // Go special-cases a bare "0": it is the only number allowed without a unit.
    if (text == "0") {
        return std::chrono::milliseconds{0};
    }
    // Go's time.Duration is int64 nanoseconds; staying within it keeps values Caddy accepts.
    constexpr auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    std::uint64_t total = 0;
    std::string_view rest = text;
    while (!rest.empty()) {
        const std::optional<decimal> number = read_decimal(rest, what, text);
        if (!number) {
            fail(what, text, "expected a number");
        }
        std::size_t unit_length = 0;
        while (unit_length < rest.size() && !is_digit(rest[unit_length]) &&
               rest[unit_length] != '.') {
            ++unit_length;
        }
        const std::string_view unit_name = rest.substr(0, unit_length);
        rest.remove_prefix(unit_length);
        if (unit_name.empty()) {
            fail(what, text, "missing unit (use ns, us, ms, s, m, h or d, e.g. \"30s\")");
        }
        const std::optional<std::uint64_t> multiplier = find_unit(unit_name, duration_units);
        if (!multiplier) {
            fail(what, text,
                 "unknown unit \"" + std::string(unit_name) + "\" (use ns, us, ms, s, m, h or d)");
        }
        const std::optional<std::uint64_t> part = multiply(*number, *multiplier, limit);
        if (!part || *part > limit - total) {
            fail(what, text, "too large");
        }
        total += *part;
    }
    // Caddy takes any positive duration (FrankenPHP's tests set max_wait_time 1ns); Spindle's
    // timers count milliseconds, so a positive duration below one is one: still "not zero".
    if (total > 0 && total < nanoseconds_per_millisecond) {
        return std::chrono::milliseconds{1};
    }
    return std::chrono::milliseconds{
        static_cast<std::chrono::milliseconds::rep>(total / nanoseconds_per_millisecond)};
}

std::size_t parse_size(std::string_view text) {
    constexpr std::string_view what = "size";
    if (text.empty()) {
        fail(what, text, "empty value");
    }
    if (is_space(text.front()) || is_space(text.back())) {
        fail(what, text, "surrounding whitespace");
    }
    if (text.front() == '-') {
        fail(what, text, "negative sizes are not allowed");
    }
    std::string_view rest = text;
    const std::optional<decimal> number = read_decimal(rest, what, text);
    if (!number) {
        fail(what, text, "expected a number");
    }
    while (!rest.empty() && is_space(rest.front())) {
        rest.remove_prefix(1);
    }
    std::string unit_name(rest);
    for (char& c : unit_name) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    const std::optional<std::uint64_t> multiplier = find_unit(unit_name, size_units);
    if (!multiplier) {
        fail(what, text,
             "unknown unit \"" + std::string(rest) +
                 "\" (use B, KB, KiB, MB, MiB, GB, GiB, TB or TiB)");
    }
    const std::optional<std::uint64_t> bytes =
        multiply(*number, *multiplier, std::numeric_limits<std::size_t>::max());
    if (!bytes) {
        fail(what, text, "too large");
    }
    return static_cast<std::size_t>(*bytes);
}

std::string format_duration(std::chrono::milliseconds duration) {
    const auto count = duration.count();
    if (count == 0) {
        return "0";
    }
    constexpr std::array<std::pair<std::chrono::milliseconds::rep, std::string_view>, 3> units{{
        {3'600'000, "h"},
        {60'000, "m"},
        {1'000, "s"},
    }};
    for (const auto& [size, name] : units) {
        if (count % size == 0) {
            return std::to_string(count / size) + std::string(name);
        }
    }
    return std::to_string(count) + "ms";
}

std::string format_size(std::size_t bytes) {
    if (bytes != 0) {
        constexpr std::array<std::pair<int, std::string_view>, 4> units{{
            {40, "TiB"},
            {30, "GiB"},
            {20, "MiB"},
            {10, "KiB"},
        }};
        for (const auto& [shift, name] : units) {
            const std::size_t size = std::size_t{1} << shift;
            if (bytes % size == 0) {
                return std::to_string(bytes / size) + std::string(name);
            }
        }
    }
    return std::to_string(bytes);
}

}  // namespace spindle::config
