#include "config/ip_ranges.hpp"

#include <arpa/inet.h>

#include <stdexcept>

namespace spindle::config {

std::optional<ip_bytes> parse_ip(std::string_view text) {
    // inet_pton wants a NUL-terminated string; the longest IPv6 text is 45 characters.
    char buffer[64];
    if (text.empty() || text.size() >= sizeof buffer) {
        return std::nullopt;
    }
    text.copy(buffer, text.size());
    buffer[text.size()] = '\0';
    ip_bytes out{};
    if (text.find(':') == std::string_view::npos) {
        in_addr v4{};
        if (::inet_pton(AF_INET, buffer, &v4) != 1) {
            return std::nullopt;
        }
        out[10] = out[11] = 0xff;
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(&v4.s_addr);
        std::copy(bytes, bytes + 4, out.begin() + 12);
        return out;
    }
    in6_addr v6{};
    if (::inet_pton(AF_INET6, buffer, &v6) != 1) {
        return std::nullopt;
    }
    std::copy(v6.s6_addr, v6.s6_addr + 16, out.begin());
    return out;
}

bool is_ipv4(const ip_bytes& a) noexcept {
    for (int i = 0; i < 10; ++i) {
        if (a[i] != 0) {
            return false;
        }
    }
    return a[10] == 0xff && a[11] == 0xff;
}

std::string format_ip(const ip_bytes& address) {
    char buffer[INET6_ADDRSTRLEN];
    if (is_ipv4(address)) {
        ::inet_ntop(AF_INET, address.data() + 12, buffer, sizeof buffer);
    } else {
        ::inet_ntop(AF_INET6, address.data(), buffer, sizeof buffer);
    }
    return buffer;
}

bool ip_range::contains(const ip_bytes& address) const noexcept {
    if (is_ipv4(address) != is_v4) {
        return false;
    }
    unsigned bits = prefix_bits;
    for (std::size_t i = 0; i < 16 && bits > 0; ++i) {
        const unsigned take = bits >= 8 ? 8 : bits;
        const auto mask = static_cast<std::uint8_t>(0xff << (8 - take));
        if ((address[i] & mask) != (network[i] & mask)) {
            return false;
        }
        bits -= take;
    }
    return true;
}

ip_range parse_ip_range(std::string_view text) {
    const auto fail = [&](const std::string& why) {
        return std::invalid_argument("\"" + std::string(text) + "\" is not an IP range: " + why);
    };
    const std::size_t slash = text.find('/');
    const std::string_view address_text = text.substr(0, slash);
    const std::optional<ip_bytes> address = parse_ip(address_text);
    if (!address) {
        throw fail("expected an address such as 10.0.0.0/8 or fd00::/8");
    }
    const bool v4 = address_text.find(':') == std::string_view::npos;
    const unsigned width = v4 ? 32 : 128;
    unsigned bits = width;
    if (slash != std::string_view::npos) {
        const std::string_view digits = text.substr(slash + 1);
        if (digits.empty() || digits.size() > 3 ||
            digits.find_first_not_of("0123456789") != std::string_view::npos) {
            throw fail("the prefix length must be a number");
        }
        bits = static_cast<unsigned>(std::stoul(std::string(digits)));
        if (bits > width) {
            throw fail("the prefix length is above " + std::to_string(width));
        }
    }
    ip_range range;
    range.network = *address;
    range.prefix_bits = v4 ? bits + 96 : bits;
    range.is_v4 = is_ipv4(range.network);
    return range;
}

const std::vector<std::string>& private_ip_ranges() {
    // The list of Caddy's `private_ranges` (modules/caddyhttp/ip_range.go).
    static const std::vector<std::string> ranges = {"192.168.0.0/16", "172.16.0.0/12", "10.0.0.0/8",
                                                    "127.0.0.1/8",    "fd00::/8",      "::1/128",
                                                    "fe80::/10",      "169.254.0.0/16"};
    return ranges;
}

ip_range_set::ip_range_set(const std::vector<std::string>& texts) {
    ranges_.reserve(texts.size());
    for (const std::string& text : texts) {
        ranges_.push_back(parse_ip_range(text));
    }
}

bool ip_range_set::contains(const ip_bytes& address) const noexcept {
    for (const ip_range& range : ranges_) {
        if (range.contains(address)) {
            return true;
        }
    }
    return false;
}

bool ip_range_set::contains(std::string_view address) const noexcept {
    const std::optional<ip_bytes> parsed = parse_ip(address);
    return parsed && contains(*parsed);
}

}  // namespace spindle::config
