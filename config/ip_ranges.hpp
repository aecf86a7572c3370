#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spindle::config {

/// An IP address as 16 bytes: IPv6 as is, IPv4 as its IPv4-mapped form (::ffff:a.b.c.d), so
/// one comparison serves both families and an IPv4 peer seen on a dual-stack socket
/// (::ffff:10.0.0.1) matches a range written "10.0.0.0/8".
using ip_bytes = std::array<std::uint8_t, 16>;

/// Parses "10.0.0.1", "::1" or "::ffff:10.0.0.1" (no brackets, no port, no zone); nullopt for
/// anything else.
std::optional<ip_bytes> parse_ip(std::string_view text);

/// The usual text of an address: dotted IPv4 for mapped addresses, else RFC 5952 IPv6.
std::string format_ip(const ip_bytes& address);

/// Whether `address` is an IPv4 address (stored IPv4-mapped).
bool is_ipv4(const ip_bytes& address) noexcept;

/// One CIDR range ("10.0.0.0/8", "fd00::/8"); a bare address is a /32 or /128. As Go's
/// netip.Prefix (which Caddy uses), an IPv4 range holds only IPv4 addresses and an IPv6 range
/// only IPv6 ones: "::/0" does not trust every IPv4 client.
struct ip_range {
    ip_bytes network{};
    unsigned prefix_bits = 128;  ///< over the 16-byte form: an IPv4 /8 is stored as /104
    bool is_v4 = false;
    bool contains(const ip_bytes& address) const noexcept;
};

/// Parses one range; throws std::invalid_argument with a message naming the text.
ip_range parse_ip_range(std::string_view text);

/// Caddy's `private_ranges`: loopback, RFC 1918, RFC 4193 and link-local, both families.
const std::vector<std::string>& private_ip_ranges();

/// A set of ranges, checked in order (a handful: a linear scan beats any index).
class ip_range_set {
  public:
    ip_range_set() = default;
    /// Throws std::invalid_argument on the first text that is not a range.
    explicit ip_range_set(const std::vector<std::string>& texts);

    bool contains(const ip_bytes& address) const noexcept;
    /// False for text that is not an address.
    bool contains(std::string_view address) const noexcept;
    bool empty() const noexcept { return ranges_.empty(); }

  private:
    std::vector<ip_range> ranges_;
};

}  // namespace spindle::config
