#include "config/listen_address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstddef>

#include "config/config_error.hpp"

namespace spindle::config {

namespace {

[[noreturn]] void fail(std::string_view text, std::string_view why) {
    throw config_error("invalid listen address \"" + std::string(text) + "\": " + std::string(why));
}

char ascii_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
    if (text.size() < prefix.size()) {
        return false;
    }
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        if (ascii_lower(text[i]) != prefix[i]) {
            return false;
        }
    }
    return true;
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_label_char(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_';
}

bool is_ipv4(const std::string& host) {
    in_addr address{};
    return ::inet_pton(AF_INET, host.c_str(), &address) == 1;
}

bool is_ipv6(const std::string& host) {
    in6_addr address{};
    return ::inet_pton(AF_INET6, host.c_str(), &address) == 1;
}

/// Checks an unbracketed host: an IPv4 address in dotted-quad form or a DNS name whose labels
/// are 1-63 letters, digits, '-' or '_' (underscores appear in container service names).
void check_host_name(std::string_view text, const std::string& host) {
    if (host.find(':') != std::string::npos) {
        fail(text, "IPv6 addresses need brackets, e.g. \"[::1]:8080\"");
    }
    if (host.size() > 253) {
        fail(text, "host name longer than 253 characters");
    }
    bool all_numeric = true;
    std::size_t label_start = 0;
    for (std::size_t i = 0; i <= host.size(); ++i) {
        if (i == host.size() || host[i] == '.') {
            const std::size_t length = i - label_start;
            if (length == 0 || length > 63) {
                fail(text, "invalid host name \"" + host + "\"");
            }
            label_start = i + 1;
        } else if (!is_label_char(host[i])) {
            fail(text, "invalid character in host \"" + host + "\"");
        } else if (!is_digit(host[i])) {
            all_numeric = false;
        }
    }
    // "1.2.3" or "300.1.1.1" are not names either; refuse them here rather than at bind time.
    if (all_numeric && !is_ipv4(host)) {
        fail(text, "invalid IPv4 address \"" + host + "\"");
    }
}

std::uint16_t parse_port(std::string_view text, std::string_view port) {
    if (port.empty()) {
        fail(text, "missing port (e.g. \":8080\" or \"127.0.0.1:8080\")");
    }
    unsigned long value = 0;
    for (char c : port) {
        if (!is_digit(c)) {
            fail(text, "port \"" + std::string(port) + "\" is not a number");
        }
        value = value * 10 + static_cast<unsigned long>(c - '0');
        if (value > 65535) {
            fail(text, "port \"" + std::string(port) + "\" is above 65535");
        }
    }
    return static_cast<std::uint16_t>(value);
}

/// "unix/PATH[|MODE]": Caddy's network address for a Unix socket ("unix//run/x.sock" is the
/// absolute path /run/x.sock).
listen_address parse_unix_address(std::string_view text) {
    std::string_view path = text.substr(5);
    listen_address address;
    if (const std::size_t bar = path.rfind('|'); bar != std::string_view::npos) {
        const std::string_view mode = path.substr(bar + 1);
        path = path.substr(0, bar);
        if (mode.empty() || mode.size() > 4 ||
            mode.find_first_not_of("01234567") != std::string_view::npos) {
            fail(text, "the socket's mode \"" + std::string(mode) +
                           "\" is not octal permission bits (e.g. |0660)");
        }
        address.unix_mode = 0;
        for (char c : mode) {
            address.unix_mode = address.unix_mode * 8 + (c - '0');
        }
    }
    if (path.empty()) {
        fail(text, "missing the socket's path (e.g. \"unix//run/spindle.sock\")");
    }
    // sockaddr_un holds 108 bytes, the terminating NUL included.
    if (path.size() > 107) {
        fail(text, "a Unix socket's path is limited to 107 bytes");
    }
    if (path.find('\0') != std::string_view::npos) {
        fail(text, "NUL in the socket's path");
    }
    address.unix_path = std::string(path);
    address.port = 0;
    return address;
}

}  // namespace

listen_address parse_listen_address(std::string_view text) {
    if (text.empty()) {
        fail(text, "empty value");
    }
    if (text.starts_with("unix/")) {
        return parse_unix_address(text);
    }
    if (text.starts_with("unix:")) {
        fail(text, "a Unix socket is written unix/PATH, e.g. \"unix//run/spindle.sock\"");
    }
    if (starts_with_ignoring_case(text, "https://unix/")) {
        fail(text, "HTTPS on a Unix socket is not supported; the proxy in front terminates TLS");
    }
    if (starts_with_ignoring_case(text, "http://unix/")) {
        return parse_unix_address(text.substr(7));
    }
    std::string_view rest = text;
    listen_address address;
    const bool is_http = starts_with_ignoring_case(rest, "http://");
    address.tls = starts_with_ignoring_case(rest, "https://");
    if (is_http || address.tls) {
        rest.remove_prefix(rest.find("://") + 3);
        // A URL pasted from a browser often ends in '/'; anything longer is a path we cannot use.
        if (rest.ends_with('/')) {
            rest.remove_suffix(1);
        }
    } else if (rest.find("://") != std::string_view::npos) {
        fail(text, "only the http:// and https:// schemes are supported");
    }

    std::string_view port;
    if (rest.starts_with('[')) {
        const std::size_t close = rest.find(']');
        if (close == std::string_view::npos) {
            fail(text, "missing ']' after the IPv6 address");
        }
        address.host = std::string(rest.substr(1, close - 1));
        if (address.host.empty()) {
            fail(text, "empty host in brackets");
        }
        if (!is_ipv6(address.host)) {
            fail(text, "\"" + address.host + "\" is not an IPv6 address");
        }
        rest.remove_prefix(close + 1);
        if (!rest.starts_with(':')) {
            fail(text, rest.empty() ? "missing port (e.g. \"[::1]:8080\")"
                                    : "expected ':' and a port after ']'");
        }
        port = rest.substr(1);
    } else {
        const std::size_t colon = rest.rfind(':');
        if (colon == std::string_view::npos) {
            fail(text, "missing port (e.g. \":8080\" or \"127.0.0.1:8080\")");
        }
        address.host = std::string(rest.substr(0, colon));
        if (!address.host.empty()) {
            check_host_name(text, address.host);
        }
        port = rest.substr(colon + 1);
    }
    address.port = parse_port(text, port);
    return address;
}

std::string to_string(const listen_address& address) {
    if (!address.unix_path.empty()) {
        std::string text = "unix/" + address.unix_path;
        if (address.unix_mode >= 0) {
            text += '|';
            for (int shift = 9; shift >= 0; shift -= 3) {
                text += static_cast<char>('0' + ((address.unix_mode >> shift) & 7));
            }
        }
        return text;
    }
    const std::string port = std::to_string(address.port);
    const std::string scheme = address.tls ? "https://" : "";
    if (address.host.find(':') != std::string::npos) {
        return scheme + "[" + address.host + "]:" + port;
    }
    return scheme + address.host + ":" + port;
}

bool same_socket(const listen_address& a, const listen_address& b) noexcept {
    return a.unix_path == b.unix_path && a.host == b.host && a.port == b.port;
}

}  // namespace spindle::config
