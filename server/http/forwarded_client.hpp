#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/ip_ranges.hpp"
#include "config/server_config.hpp"

namespace spindle::server {

/// One request header as views into the parser's buffer.
struct field_view {
    std::string_view name;
    std::string_view value;
};

/// One element of an RFC 7239 `Forwarded` header: its for=, proto= and host= parameters,
/// unquoted ("" when absent): views into the header value.
struct forwarded_element {
    std::string_view for_node;
    std::string_view proto;
    std::string_view host;
};

/// Parses one `Forwarded` field value ("for=1.2.3.4;proto=https, for=\"[::1]:80\"") and
/// appends its elements; a malformed element ends the parse (what came before is kept, as a
/// proxy appends its element at the end and a broken one cannot be trusted past).
/// Quoted strings keep their views; a quoted-pair (\") is rare enough that such a value is
/// left out rather than copied.
void parse_forwarded(std::string_view value, std::vector<forwarded_element>& out);

/// An address with an optional port as forwarding headers write it: "1.2.3.4", "1.2.3.4:80",
/// "2001:db8::1", "[2001:db8::1]:80"; nullopt when it is no address ("unknown", "_hidden").
/// An obfuscated or missing port is 0.
struct node_address {
    config::ip_bytes address{};
    std::uint16_t port = 0;
};
std::optional<node_address> parse_node(std::string_view text);

/// The trusted_proxies settings, made ready for lookups. Built once by the control thread,
/// then read by every I/O thread.
struct forwarding_rules {
    forwarding_rules() = default;
    /// Throws std::invalid_argument for a range that is not one (config checks them first).
    explicit forwarding_rules(const config::trusted_proxies_config& config);

    config::ip_range_set trusted;
    bool strict = false;
    bool trust_unix = false;
    bool use_host = false;
    std::vector<std::string> client_ip_headers;

    /// Whether any peer can be trusted: without, nothing below is looked at.
    bool is_enabled() const noexcept { return !trusted.empty() || trust_unix; }
};

/// What a trusted proxy says about the client. Absent fields keep the connection's own.
struct forwarded_client {
    std::optional<std::string> address;        ///< REMOTE_ADDR
    std::uint16_t port = 0;                    ///< REMOTE_PORT with `address` (0: not given)
    std::optional<bool> is_https;              ///< X-Forwarded-Proto / proto=
    std::optional<std::uint16_t> server_port;  ///< X-Forwarded-Port
    std::optional<std::string> host;           ///< X-Forwarded-Host / host=, with use_host only
};

/// Whether the connection's peer is a trusted proxy. `peer` is its address text; `is_unix`
/// for a Unix-socket peer, trusted only with trust_unix.
bool is_trusted_peer(const forwarding_rules& rules, std::string_view peer, bool is_unix) noexcept;

/// Reads the forwarding headers of a request from a trusted peer (the caller checks that).
/// The client address is taken from the first of client_ip_headers present: with `strict`
/// the right-most address that is not a trusted proxy, else the left-most address (Caddy's
/// client_ip, modules/caddyhttp/server.go). Runs on the connection's I/O thread.
forwarded_client read_forwarded(const forwarding_rules& rules, std::span<const field_view> fields);

}  // namespace spindle::server
