#pragma once

#include <cstddef>
#include <string_view>

namespace spindle::server {

// Reading HTTP field values: header-only, pure, any thread.

/// `s` without the optional whitespace (spaces and tabs, RFC 9110 5.6.3) at either end.
inline std::string_view trim_ows(std::string_view s) noexcept {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
        s.remove_suffix(1);
    }
    return s;
}

/// Calls `visit` with each element of a comma-separated field value (RFC 9110 5.6.1), trimmed,
/// skipping empty ones as a recipient may, until `visit` returns true. Returns whether it did.
template <class Visit>
bool find_list_element(std::string_view list, Visit visit) {
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        const std::string_view element = trim_ows(list.substr(0, comma));
        list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
        if (!element.empty() && visit(element)) {
            return true;
        }
    }
    return false;
}

}  // namespace spindle::server
