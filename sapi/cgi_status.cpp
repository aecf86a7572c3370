#include "sapi/cgi_status.hpp"

namespace spindle::sapi {

std::optional<cgi_status> parse_cgi_status(std::string_view value) noexcept {
    auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) {
        value.remove_suffix(1);
    }
    if (value.size() < 3 || !is_digit(value[0]) || !is_digit(value[1]) || !is_digit(value[2]) ||
        value[0] < '2') {
        return std::nullopt;
    }
    int code = (value[0] - '0') * 100 + (value[1] - '0') * 10 + (value[2] - '0');
    std::string_view rest = value.substr(3);
    if (rest.empty()) {
        return cgi_status{code, {}};
    }
    if (rest.front() != ' ' && rest.front() != '\t') {
        return std::nullopt;  // "4040", "404x"
    }
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) {
        rest.remove_prefix(1);
    }
    return cgi_status{code, rest};
}

}  // namespace spindle::sapi
