#include "server/http/http1_head.hpp"

#include <charconv>

#include "server/http/header_rules.hpp"
#include "server/http/http_date.hpp"
#include "server/http/status_text.hpp"

namespace spindle::server {
namespace {

void append_number(std::string& out, std::uint64_t n) {
    char digits[24];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
    out.append(digits, end);
}

}  // namespace

http1_head::http1_head(int status, std::string_view reason) : status_(status) {
    // Most heads fit: a status line, Date, Server, a type, a length, a few of the app's.
    bytes_.reserve(256);
    bytes_.append("HTTP/1.1 ");
    append_number(bytes_, static_cast<std::uint64_t>(status));
    bytes_.push_back(' ');
    bytes_.append(reason.empty() ? status_text(status) : reason);
    bytes_.append("\r\n");
}

http1_head& http1_head::field(std::string_view name, std::string_view value) {
    bytes_.append(name).append(": ").append(value).append("\r\n");
    return *this;
}

http1_head& http1_head::lines(std::string_view formatted) {
    bytes_.append(formatted);
    return *this;
}

http1_head& http1_head::date() {
    return field("Date", current_http_date());
}

http1_head& http1_head::server() {
    bytes_.append("Server: Spindle\r\n");
    return *this;
}

http1_head& http1_head::content_length(std::uint64_t length) {
    bytes_.append("Content-Length: ");
    append_number(bytes_, length);
    bytes_.append("\r\n");
    return *this;
}

http1_head& http1_head::connection(bool keep_alive, int http_version) {
    if (!keep_alive) {
        bytes_.append("Connection: close\r\n");
    } else if (http_version < 11) {
        bytes_.append("Connection: keep-alive\r\n");
    }
    return *this;
}

std::string http1_head::finish(const std::vector<config::header_rule>* rules) {
    bytes_.append("\r\n");
    if (rules != nullptr) {
        apply_header_rules(bytes_, *rules);
    }
    return std::move(bytes_);
}

}  // namespace spindle::server
