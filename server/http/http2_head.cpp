#include "server/http/http2_head.hpp"

#include <boost/beast/core/string.hpp>
#include <cctype>
#include <string>

#include "server/http/header_rules.hpp"
#include "server/http/http_date.hpp"

namespace spindle::server {

bool is_http2_field(std::string_view name) noexcept {
    using boost::beast::iequals;
    return !iequals(name, "connection") && !iequals(name, "keep-alive") &&
           !iequals(name, "proxy-connection") && !iequals(name, "transfer-encoding") &&
           !iequals(name, "upgrade");
}

http2_head::http2_head(int status) {
    head_.status = status;
    head_.fields.reserve(8);
}

http2_head& http2_head::field(std::string_view name, std::string_view value) {
    if (!is_http2_field(name)) {
        return *this;
    }
    std::string lower(name);
    for (char& c : lower) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    head_.fields.push_back({std::move(lower), std::string(value)});
    return *this;
}

http2_head& http2_head::date() {
    return field("date", current_http_date());
}

http2_head& http2_head::server() {
    return field("server", "Spindle");
}

http2_head& http2_head::content_length(std::uint64_t length) {
    return field("content-length", std::to_string(length));
}

response_head http2_head::finish(const std::vector<config::header_rule>* rules) {
    if (rules != nullptr) {
        apply_header_rules(head_.fields, *rules);
    }
    return std::move(head_);
}

}  // namespace spindle::server
