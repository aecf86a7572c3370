#include "server/http/request_headers.hpp"

#include <cctype>
#include <charconv>
#include <string>

#include <boost/beast/core/string.hpp>

#include "server/http/field_lists.hpp"

namespace spindle::server {

bool is_forwardable_header_name(std::string_view name) noexcept {
    if (name.empty()) {
        return false;
    }
    for (char c : name) {
        bool ok =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
        if (!ok) {
            return false;
        }
    }
    return true;
}

bool is_chunked_only(const boost::beast::http::fields& fields) noexcept {
    int codings = 0;
    bool chunked = false;
    const auto [first, last] = fields.equal_range(boost::beast::http::field::transfer_encoding);
    for (auto it = first; it != last; ++it) {
        find_list_element(it->value(), [&](std::string_view coding) {
            ++codings;
            chunked = boost::beast::iequals(coding, "chunked");
            return false;
        });
    }
    return codings == 1 && chunked;
}

bool is_valid_host(std::string_view host) noexcept {
    std::string_view name = host;
    std::string_view port;
    if (host.starts_with('[')) {
        const std::size_t close = host.find(']');
        if (close == std::string_view::npos || close < 2) {
            return false;
        }
        for (char c : host.substr(1, close - 1)) {
            if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') {
                return false;
            }
        }
        name = {};
        port = host.substr(close + 1);
        if (!port.empty() && !port.starts_with(':')) {
            return false;
        }
    } else if (const std::size_t colon = host.find(':'); colon != std::string_view::npos) {
        name = host.substr(0, colon);
        port = host.substr(colon);
    }
    if (!port.empty()) {
        port.remove_prefix(1);  // the ':'; an empty port is allowed (port = *DIGIT)
        if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string_view::npos) {
            return false;
        }
    }
    if (!host.starts_with('[') && name.empty()) {
        return false;
    }
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
        if (!ok) {
            return false;
        }
    }
    return true;
}

std::string_view host_without_port(std::string_view host) noexcept {
    if (host.starts_with('[')) {
        auto close = host.find(']');
        return close == std::string_view::npos ? host : host.substr(0, close + 1);
    }
    auto colon = host.rfind(':');
    return colon == std::string_view::npos ? host : host.substr(0, colon);
}

std::uint16_t server_port_of(std::string_view host, bool is_https) noexcept {
    const std::uint16_t scheme_port = is_https ? 443 : 80;
    const std::string_view name = host_without_port(host);
    if (name.size() + 1 >= host.size()) {
        return scheme_port;
    }
    const std::string_view digits = host.substr(name.size() + 1);
    std::uint16_t port = 0;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (error != std::errc() || end != digits.data() + digits.size() || port == 0) {
        return scheme_port;
    }
    return port;
}

void copy_forwardable_headers(const boost::beast::http::fields& fields,
                              std::vector<sapi::header>& out) {
    for (const auto& field : fields) {
        const std::string_view name = field.name_string();
        if (!is_forwardable_header_name(name) || boost::beast::iequals(name, "proxy")) {
            continue;
        }
        out.push_back({std::string(name), std::string(field.value())});
    }
}

}  // namespace spindle::server
