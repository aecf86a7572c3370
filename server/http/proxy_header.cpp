#include "server/http/proxy_header.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace spindle::server {

namespace {

constexpr std::string_view v1_signature = "PROXY ";
constexpr std::string_view v2_signature{"\r\n\r\n\0\r\nQUIT\n", 12};

// The v2 family-and-transport byte (proxy-protocol.txt, 2.2).
constexpr unsigned char tcp4 = 0x11;
constexpr unsigned char udp4 = 0x12;
constexpr unsigned char tcp6 = 0x21;
constexpr unsigned char udp6 = 0x22;

std::optional<std::uint16_t> parse_v1_port(std::string_view text) {
    // Decimal, no sign, no leading zero (the specification's grammar), 0 to 65535.
    if (text.empty() || text.size() > 5 || (text.size() > 1 && text.front() == '0')) {
        return std::nullopt;
    }
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value > 65535) {
        return std::nullopt;
    }
    return static_cast<std::uint16_t>(value);
}

std::uint16_t read_port(const unsigned char* bytes) {
    return static_cast<std::uint16_t>(bytes[0] << 8 | bytes[1]);
}

}  // namespace

std::string_view to_string(proxy_header_state state) noexcept {
    switch (state) {
        case proxy_header_state::start: return "start";
        case proxy_header_state::v1_signature: return "v1_signature";
        case proxy_header_state::v2_signature: return "v2_signature";
        case proxy_header_state::v1_line: return "v1_line";
        case proxy_header_state::v2_fixed: return "v2_fixed";
        case proxy_header_state::v2_payload: return "v2_payload";
        case proxy_header_state::done: return "done";
        case proxy_header_state::not_proxy: return "not_proxy";
        case proxy_header_state::invalid: return "invalid";
    }
    return "?";
}

std::size_t proxy_header_parser::feed(std::string_view bytes) noexcept {
    std::size_t used = 0;
    while (used < bytes.size() && !is_final()) {
        state_ = transition(static_cast<unsigned char>(bytes[used]));
        ++used;
        ++consumed_;
    }
    if (state_ == proxy_header_state::not_proxy) {
        // The bytes looked at belong to the application protocol, as do the ones before.
        consumed_ = 0;
        return 0;
    }
    return used;
}

proxy_header_state proxy_header_parser::fail(std::string_view why) noexcept {
    error_ = why;
    return proxy_header_state::invalid;
}

proxy_header_state proxy_header_parser::transition(unsigned char byte) noexcept {
    switch (state_) {
        case proxy_header_state::start:
            position_ = 1;
            if (byte == static_cast<unsigned char>(v1_signature[0])) {
                return proxy_header_state::v1_signature;
            }
            if (byte == static_cast<unsigned char>(v2_signature[0])) {
                return proxy_header_state::v2_signature;
            }
            return proxy_header_state::not_proxy;
        case proxy_header_state::v1_signature:
            if (byte != static_cast<unsigned char>(v1_signature[position_])) {
                return proxy_header_state::not_proxy;
            }
            return ++position_ == v1_signature.size() ? proxy_header_state::v1_line
                                                      : proxy_header_state::v1_signature;
        case proxy_header_state::v2_signature:
            if (byte != static_cast<unsigned char>(v2_signature[position_])) {
                return proxy_header_state::not_proxy;
            }
            if (++position_ < v2_signature.size()) {
                return proxy_header_state::v2_signature;
            }
            data_.clear();
            return proxy_header_state::v2_fixed;
        case proxy_header_state::v1_line:
            if (consumed_ + 1 > max_v1_size) {
                return fail("v1 line longer than 107 bytes");
            }
            if (byte == '\n') {
                if (data_.empty() || data_.back() != '\r') {
                    return fail("v1 line ends without CR LF");
                }
                data_.pop_back();
                return finish_v1();
            }
            if (byte == '\0') {
                return fail("NUL byte in a v1 line");
            }
            data_.push_back(static_cast<char>(byte));
            return proxy_header_state::v1_line;
        case proxy_header_state::v2_fixed:
            data_.push_back(static_cast<char>(byte));
            if (data_.size() < 4) {
                return proxy_header_state::v2_fixed;
            }
            {
                const auto* fixed = reinterpret_cast<const unsigned char*>(data_.data());
                if ((fixed[0] >> 4) != 2) {
                    return fail("v2 header with a version other than 2");
                }
                if ((fixed[0] & 0x0f) > 1) {
                    return fail("v2 header with a command other than LOCAL or PROXY");
                }
                payload_size_ = read_port(fixed + 2);
                if (payload_size_ > max_v2_payload) {
                    return fail("v2 header longer than 4096 bytes");
                }
            }
            return payload_size_ == 0 ? finish_v2() : proxy_header_state::v2_payload;
        case proxy_header_state::v2_payload:
            data_.push_back(static_cast<char>(byte));
            return data_.size() == 4 + payload_size_ ? finish_v2() : proxy_header_state::v2_payload;
        case proxy_header_state::done:
        case proxy_header_state::not_proxy:
        case proxy_header_state::invalid: return state_;
    }
    return state_;
}

proxy_header_state proxy_header_parser::finish_v1() noexcept {
    // "TCP4 SRC DST SPORT DPORT", "TCP6 ...", or "UNKNOWN" with anything after it.
    header_ = {};
    header_.version = 1;
    std::vector<std::string_view> fields;
    std::string_view rest = data_;
    while (!rest.empty() && fields.size() < 6) {
        const std::size_t space = rest.find(' ');
        fields.push_back(rest.substr(0, space));
        rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    }
    if (fields.empty()) {
        return fail("v1 line without a protocol");
    }
    if (fields[0] == "UNKNOWN") {
        return proxy_header_state::done;
    }
    if (data_.back() == ' ') {
        return fail("v1 line ends in a space");
    }
    if (fields[0] != "TCP4" && fields[0] != "TCP6") {
        return fail("v1 protocol is not TCP4, TCP6 or UNKNOWN");
    }
    if (fields.size() != 5 || !rest.empty()) {
        return fail("v1 line needs exactly: protocol, two addresses, two ports");
    }
    const bool v6 = fields[0] == "TCP6";
    const std::optional<config::ip_bytes> source = config::parse_ip(fields[1]);
    const std::optional<config::ip_bytes> destination = config::parse_ip(fields[2]);
    const std::optional<std::uint16_t> source_port = parse_v1_port(fields[3]);
    const std::optional<std::uint16_t> destination_port = parse_v1_port(fields[4]);
    // The address must be of the family named: "TCP4 ::1 ..." is malformed.
    const auto is_family = [v6](std::string_view text) {
        return (text.find(':') != std::string_view::npos) == v6;
    };
    if (!source || !destination || !is_family(fields[1]) || !is_family(fields[2])) {
        return fail("v1 address is not one of the protocol's family");
    }
    if (!source_port || !destination_port) {
        return fail("v1 port is not a number from 0 to 65535");
    }
    header_.source = proxy_endpoint{*source, *source_port};
    header_.destination = proxy_endpoint{*destination, *destination_port};
    return proxy_header_state::done;
}

proxy_header_state proxy_header_parser::finish_v2() noexcept {
    header_ = {};
    header_.version = 2;
    const auto* bytes = reinterpret_cast<const unsigned char*>(data_.data());
    const bool is_local = (bytes[0] & 0x0f) == 0;
    const unsigned char family = bytes[1];
    const unsigned char* payload = bytes + 4;
    if (is_local) {
        // The proxy speaks for itself (a health check): the payload is to be skipped.
        return proxy_header_state::done;
    }
    if (family == tcp4 || family == udp4) {
        if (payload_size_ < 12) {
            return fail("v2 IPv4 addresses cut short");
        }
        proxy_endpoint source;
        proxy_endpoint destination;
        source.address[10] = source.address[11] = 0xff;
        destination.address[10] = destination.address[11] = 0xff;
        std::memcpy(source.address.data() + 12, payload, 4);
        std::memcpy(destination.address.data() + 12, payload + 4, 4);
        source.port = read_port(payload + 8);
        destination.port = read_port(payload + 10);
        header_.source = source;
        header_.destination = destination;
        return proxy_header_state::done;
    }
    if (family == tcp6 || family == udp6) {
        if (payload_size_ < 36) {
            return fail("v2 IPv6 addresses cut short");
        }
        proxy_endpoint source;
        proxy_endpoint destination;
        std::memcpy(source.address.data(), payload, 16);
        std::memcpy(destination.address.data(), payload + 16, 16);
        source.port = read_port(payload + 32);
        destination.port = read_port(payload + 34);
        header_.source = source;
        header_.destination = destination;
        return proxy_header_state::done;
    }
    // UNSPEC and Unix addresses: accepted, the peer's address stays.
    const unsigned char address_family = family >> 4;
    const unsigned char transport = family & 0x0f;
    if (address_family > 3 || transport > 2) {
        return fail("v2 unknown address family or transport");
    }
    return proxy_header_state::done;
}

std::optional<proxy_policy> parse_proxy_policy(std::string_view text) noexcept {
    if (text == "ignore") {
        return proxy_policy::ignore;
    }
    if (text == "use") {
        return proxy_policy::use;
    }
    if (text == "reject") {
        return proxy_policy::reject;
    }
    if (text == "require") {
        return proxy_policy::require;
    }
    if (text == "skip") {
        return proxy_policy::skip;
    }
    return std::nullopt;
}

proxy_protocol_rules::proxy_protocol_rules(const config::proxy_protocol_config& config)
    : timeout(config.timeout), allow(config.allow), deny(config.deny) {
    const std::optional<proxy_policy> policy = parse_proxy_policy(config.fallback_policy);
    if (!policy) {
        throw std::invalid_argument("unknown fallback_policy \"" + config.fallback_policy + "\"");
    }
    fallback = *policy;
}

proxy_policy proxy_protocol_rules::policy_for(std::string_view peer, bool is_unix) const noexcept {
    if (is_unix) {
        return proxy_policy::use;
    }
    const std::optional<config::ip_bytes> address = config::parse_ip(peer);
    if (address && deny.contains(*address)) {
        return proxy_policy::reject;
    }
    if (address && allow.contains(*address)) {
        return proxy_policy::use;
    }
    return fallback;
}

}  // namespace spindle::server
