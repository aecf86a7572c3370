#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace spindle::config {

/// An address the public listener binds, as given ("127.0.0.1:8080", ":8080", "[::1]:80"), or
/// a Unix domain socket written as Caddy writes it ("unix//run/spindle.sock", "|0660" after
/// it for the socket file's mode): what a reverse proxy on the same host connects to.
struct listen_address {
    std::string host;  ///< empty means every interface; IPv6 without brackets
    std::uint16_t port = 8080;
    bool tls = false;         ///< written as "https://": the listener speaks TLS (HTTPS)
    std::string unix_path{};  ///< not empty: a Unix socket at this path; host and port unused
    int unix_mode = -1;       ///< the socket file's permission bits; -1: as the umask makes them

    /// Two addresses are equal when every field is, as written (no name resolution).
    friend bool operator==(const listen_address&, const listen_address&) = default;
};

/// Parses "host:port", ":port" (every interface), "[ipv6]:port", each optionally prefixed by
/// "http://" or "https://" (case-insensitive, with an optional trailing '/'); "https://" sets
/// `tls`. The host is an IPv4 address, a host name, or an IPv6 address in brackets; the port is
/// 0-65535 (0 = any free port). "unix/PATH" or "unix/PATH|MODE" (octal) is a Unix socket, plain
/// HTTP only. Throws config_error naming the value on anything else.
listen_address parse_listen_address(std::string_view text);

/// Writes an address the way parse_listen_address reads it: "host:port", ":port" for every
/// interface, "[host]:port" for IPv6, with "https://" in front when it speaks TLS;
/// "unix/PATH[|MODE]" for a Unix socket.
std::string to_string(const listen_address& address);

/// True when both name the same socket (host and port, or socket path), whatever their schemes:
/// one socket cannot speak TLS for one site and plain HTTP for another.
bool same_socket(const listen_address& a, const listen_address& b) noexcept;

}  // namespace spindle::config
