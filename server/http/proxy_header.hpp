#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/ip_ranges.hpp"
#include "config/server_config.hpp"

namespace spindle::server {

/// An address and port a PROXY header carries.
struct proxy_endpoint {
    config::ip_bytes address{};
    std::uint16_t port = 0;
};

/// What a complete PROXY header said. `source` is empty for a LOCAL command (a health check
/// of the proxy itself), an UNKNOWN or UNSPEC family, or Unix addresses: the connection then
/// keeps its own peer address.
struct proxy_header {
    int version = 0;  ///< 1 (text) or 2 (binary)
    std::optional<proxy_endpoint> source;
    std::optional<proxy_endpoint> destination;
};

/// Where the parser stands. signature..v2_payload read; done, not_proxy and invalid are final.
enum class proxy_header_state {
    start,         ///< no byte yet
    v1_signature,  ///< inside "PROXY "
    v2_signature,  ///< inside the 12-byte binary signature
    v1_line,       ///< the rest of the text line, up to CRLF
    v2_fixed,      ///< version/command, family, length (4 bytes)
    v2_payload,    ///< the addresses and TLVs
    done,          ///< header() holds it; header_size() bytes belong to it
    not_proxy,     ///< the stream does not start with a PROXY header (nothing of it is used)
    invalid,       ///< a PROXY header, but malformed: error() says how
};

/// Lower-case name, for logs.
std::string_view to_string(proxy_header_state state) noexcept;

/// Reads the PROXY protocol header (HAProxy's proxy-protocol.txt, versions 1 and 2) from the
/// start of a connection, fed as bytes arrive. Runs on the connection's I/O thread.
class proxy_header_parser {
  public:
    /// The largest v1 line (the specification's 107 bytes, CRLF included).
    static constexpr std::size_t max_v1_size = 107;
    /// The largest v2 address-and-TLV block accepted: Unix addresses (216 bytes) and the TLVs
    /// of HAProxy and AWS NLB fit many times; larger ones are refused, not buffered.
    static constexpr std::size_t max_v2_payload = 4096;

    /// Takes bytes that follow those fed before; returns how many it used, fewer than given
    /// only once a final state is reached (the rest is the protocol after the header).
    std::size_t feed(std::string_view bytes) noexcept;

    proxy_header_state state() const noexcept { return state_; }
    bool is_final() const noexcept {
        return state_ == proxy_header_state::done || state_ == proxy_header_state::not_proxy ||
               state_ == proxy_header_state::invalid;
    }
    /// With done: the header.
    const proxy_header& header() const noexcept { return header_; }
    /// With done: its length in bytes, to drop from the stream.
    std::size_t header_size() const noexcept { return consumed_; }
    /// With invalid: why.
    std::string_view error() const noexcept { return error_; }

  private:
    /// The one transition function: the state after `byte` in the current one.
    [[nodiscard]] proxy_header_state transition(unsigned char byte) noexcept;
    proxy_header_state fail(std::string_view why) noexcept;
    proxy_header_state finish_v1() noexcept;
    proxy_header_state finish_v2() noexcept;

    proxy_header_state state_ = proxy_header_state::start;
    std::size_t consumed_ = 0;  ///< bytes taken so far
    std::size_t position_ = 0;  ///< within the current signature or fixed part
    std::string data_;          ///< v1 line after "PROXY ", or v2 fixed part then payload
    std::size_t payload_size_ = 0;
    proxy_header header_;
    std::string_view error_;
};

/// What to do with a peer's PROXY header: go-proxyproto's policies, by Caddy's names.
enum class proxy_policy {
    ignore,   ///< read a header if there is one, keep the peer's address
    use,      ///< read a header if there is one, take its address
    reject,   ///< refuse the connection if it sends one
    require,  ///< refuse the connection unless it sends one; take its address
    skip,     ///< read nothing: the bytes are the application's
};

/// Parses "ignore", "use", "reject", "require", "skip".
std::optional<proxy_policy> parse_proxy_policy(std::string_view text) noexcept;

/// The proxy_protocol listener wrapper, ready for lookups: built by the control thread, read
/// by every I/O thread.
struct proxy_protocol_rules {
    /// Throws std::invalid_argument for a bad range or policy (config checks them first).
    explicit proxy_protocol_rules(const config::proxy_protocol_config& config);

    std::chrono::milliseconds timeout;
    config::ip_range_set allow;
    config::ip_range_set deny;
    proxy_policy fallback = proxy_policy::ignore;

    /// The policy for a peer: deny ranges reject, allow ranges use, others the fallback; a
    /// Unix-socket peer is a local proxy and uses it (as Caddy trusts Unix sockets).
    proxy_policy policy_for(std::string_view peer, bool is_unix) const noexcept;
};

}  // namespace spindle::server
