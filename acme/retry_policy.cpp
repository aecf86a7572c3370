#include "acme/retry_policy.hpp"

#include <algorithm>
#include <ctime>

namespace spindle::acme {

std::chrono::seconds retry_delay(unsigned failures, std::chrono::seconds first,
                                 std::chrono::seconds most,
                                 std::optional<std::chrono::seconds> retry_after) {
    // 2^16 times the first delay is past any sensible maximum: stop doubling there.
    const unsigned doublings = std::min(failures == 0 ? 0U : failures - 1, 16U);
    std::chrono::seconds delay = std::min<std::chrono::seconds>(first * (1LL << doublings), most);
    if (retry_after) {
        delay = std::max(delay, *retry_after);
    }
    return delay;
}

std::optional<std::chrono::seconds> parse_retry_after(const std::string& value) {
    if (value.empty()) {
        return std::nullopt;
    }
    if (value.find_first_not_of("0123456789") == std::string::npos) {
        if (value.size() > 9) {
            return std::chrono::seconds(999'999'999);
        }
        return std::chrono::seconds(std::stoll(value));
    }
    std::tm tm{};
    const char* end = strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
    if (end == nullptr || *end != '\0') {
        return std::nullopt;
    }
    const auto at = std::chrono::system_clock::from_time_t(timegm(&tm));
    const auto wait =
        std::chrono::duration_cast<std::chrono::seconds>(at - std::chrono::system_clock::now());
    return std::max(wait, std::chrono::seconds(0));
}

}  // namespace spindle::acme
