#include "server/process/signal_safe_writer.hpp"

#include <unistd.h>

#include <cerrno>

namespace spindle::server {

signal_safe_writer& signal_safe_writer::text(std::string_view s) noexcept {
    for (const char c : s) {
        put(c);
    }
    return *this;
}

signal_safe_writer& signal_safe_writer::printable(std::string_view s) noexcept {
    for (const char c : s) {
        const auto byte = static_cast<unsigned char>(c);
        put(byte < 0x20 || byte == 0x7f ? '?' : c);
    }
    return *this;
}

signal_safe_writer& signal_safe_writer::json_escaped(std::string_view s) noexcept {
    static constexpr char hex_digits[] = "0123456789abcdef";
    for (const char c : s) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            put('\\');
            put(c);
        } else if (byte < 0x20 || byte == 0x7f) {
            text("\\u00");
            put(hex_digits[byte >> 4]);
            put(hex_digits[byte & 15]);
        } else {
            put(c);
        }
    }
    return *this;
}

signal_safe_writer& signal_safe_writer::decimal(std::uint64_t n, int min_digits) noexcept {
    // 20 digits hold 2^64 - 1.
    char digits[20];
    int count = 0;
    do {
        digits[count++] = static_cast<char>('0' + n % 10);
        n /= 10;
    } while (n != 0 && count < 20);
    for (int pad = count; pad < min_digits; ++pad) {
        put('0');
    }
    while (count > 0) {
        put(digits[--count]);
    }
    return *this;
}

signal_safe_writer& signal_safe_writer::signed_decimal(std::int64_t n) noexcept {
    if (n < 0) {
        put('-');
        // Through unsigned arithmetic: -INT64_MIN does not fit an int64_t.
        return decimal(0 - static_cast<std::uint64_t>(n));
    }
    return decimal(static_cast<std::uint64_t>(n));
}

signal_safe_writer& signal_safe_writer::hex(std::uintptr_t n) noexcept {
    static constexpr char hex_digits[] = "0123456789abcdef";
    char digits[2 * sizeof(std::uintptr_t)];
    int count = 0;
    do {
        digits[count++] = hex_digits[n & 15];
        n >>= 4;
    } while (n != 0);
    text("0x");
    while (count > 0) {
        put(digits[--count]);
    }
    return *this;
}

signal_safe_writer& signal_safe_writer::timestamp(std::int64_t unix_seconds,
                                                  std::int64_t nanoseconds,
                                                  std::int64_t offset_seconds, bool json) noexcept {
    const civil_time t = to_civil_time(unix_seconds + offset_seconds);
    signed_decimal(t.year).put('-');
    decimal(static_cast<std::uint64_t>(t.month), 2).put('-');
    decimal(static_cast<std::uint64_t>(t.day), 2).put(json ? 'T' : ' ');
    decimal(static_cast<std::uint64_t>(t.hour), 2).put(':');
    decimal(static_cast<std::uint64_t>(t.minute), 2).put(':');
    decimal(static_cast<std::uint64_t>(t.second), 2).put('.');
    decimal(static_cast<std::uint64_t>(nanoseconds / 1'000'000), 3);
    if (json) {
        // spdlog's %z: +hhmm.
        const std::int64_t minutes = (offset_seconds < 0 ? -offset_seconds : offset_seconds) / 60;
        put(offset_seconds < 0 ? '-' : '+');
        decimal(static_cast<std::uint64_t>(minutes / 60), 2);
        decimal(static_cast<std::uint64_t>(minutes % 60), 2);
    }
    return *this;
}

void signal_safe_writer::put(char c) noexcept {
    if (used_ == buffer_.size()) {
        flush();
    }
    buffer_[used_++] = c;
}

void signal_safe_writer::flush() noexcept {
    std::size_t done = 0;
    while (done < used_) {
        const ssize_t wrote = ::write(fd_, buffer_.data() + done, used_ - done);
        if (wrote > 0) {
            done += static_cast<std::size_t>(wrote);
        } else if (wrote < 0 && errno == EINTR) {
            continue;
        } else {
            break;
        }
    }
    used_ = 0;
}

civil_time to_civil_time(std::int64_t unix_seconds) noexcept {
    // Floor division: a time before 1970 still has its seconds of the day in [0, 86400).
    std::int64_t days = unix_seconds / 86'400;
    std::int64_t second_of_day = unix_seconds % 86'400;
    if (second_of_day < 0) {
        second_of_day += 86'400;
        --days;
    }
    // civil_from_days (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms"): eras of
    // 400 years (146097 days) counted from 0000-03-01, so the leap day ends a year.
    const std::int64_t z = days + 719'468;
    const std::int64_t era = (z >= 0 ? z : z - 146'096) / 146'097;
    const std::int64_t day_of_era = z - era * 146'097;
    const std::int64_t year_of_era =
        (day_of_era - day_of_era / 1'460 + day_of_era / 36'524 - day_of_era / 146'096) / 365;
    const std::int64_t day_of_year =
        day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    const std::int64_t month_from_march = (5 * day_of_year + 2) / 153;
    civil_time t;
    t.day = static_cast<int>(day_of_year - (153 * month_from_march + 2) / 5 + 1);
    t.month = static_cast<int>(month_from_march < 10 ? month_from_march + 3 : month_from_march - 9);
    t.year = year_of_era + era * 400 + (t.month <= 2 ? 1 : 0);
    t.hour = static_cast<int>(second_of_day / 3'600);
    t.minute = static_cast<int>(second_of_day / 60 % 60);
    t.second = static_cast<int>(second_of_day % 60);
    return t;
}

}  // namespace spindle::server
