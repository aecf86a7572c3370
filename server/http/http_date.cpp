#include "server/http/http_date.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace spindle::server {
namespace {

constexpr std::array<const char*, 7> day_names = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<const char*, 12> month_names = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

}  // namespace

std::string format_http_date(std::time_t t) {
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::array<char, 32> buffer{};
    int n = std::snprintf(buffer.data(), buffer.size(), "%s, %02d %s %04d %02d:%02d:%02d GMT",
                          day_names[tm.tm_wday], tm.tm_mday, month_names[tm.tm_mon],
                          tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
    return std::string(buffer.data(), static_cast<std::size_t>(n));
}

std::optional<std::time_t> parse_http_date(std::string_view text) {
    // "Sun, 06 Nov 1994 08:49:37 GMT" is exactly 29 characters.
    if (text.size() != 29 || text.substr(3, 2) != ", " || text.substr(25) != " GMT") {
        return std::nullopt;
    }
    auto digits = [&](std::size_t pos, std::size_t count, int& out) {
        out = 0;
        for (std::size_t i = pos; i < pos + count; ++i) {
            if (text[i] < '0' || text[i] > '9') {
                return false;
            }
            out = out * 10 + (text[i] - '0');
        }
        return true;
    };
    std::tm tm{};
    int month = -1;
    for (int i = 0; i < 12; ++i) {
        if (text.substr(8, 3) == month_names[static_cast<std::size_t>(i)]) {
            month = i;
        }
    }
    int year = 0;
    if (month < 0 || !digits(5, 2, tm.tm_mday) || !digits(12, 4, year) ||
        !digits(17, 2, tm.tm_hour) || !digits(20, 2, tm.tm_min) || !digits(23, 2, tm.tm_sec) ||
        text[7] != ' ' || text[11] != ' ' || text[16] != ' ' || text[19] != ':' ||
        text[22] != ':') {
        return std::nullopt;
    }
    tm.tm_mon = month;
    tm.tm_year = year - 1900;
    return timegm(&tm);
}

std::string_view current_http_date() {
    thread_local std::time_t cached_second = 0;
    thread_local std::string cached;
    std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    if (now != cached_second) {
        cached_second = now;
        cached = format_http_date(now);
    }
    return cached;
}

}  // namespace spindle::server
