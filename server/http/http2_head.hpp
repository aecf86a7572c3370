#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "config/server_config.hpp"
#include "server/http/response_connection.hpp"

namespace spindle::server {

/// The one builder of HTTP/2 response heads, with http1_head's calls, so that php_exchange
/// and the HTTP/2 connection fill a head the same way whatever the protocol. Names go out in
/// lower case (RFC 9113 8.2.1) and the connection-specific fields HTTP/2 forbids (8.2.2) are
/// dropped here, once, whoever adds them. The status stays a number; HPACK encodes it.
/// Used on the I/O thread and on PHP threads, one builder per response.
class http2_head {
  public:
    explicit http2_head(int status);

    int status() const noexcept { return head_.status; }

    http2_head& field(std::string_view name, std::string_view value);
    /// Date (now, cached per second) and "server: Spindle", as every Spindle-made head has.
    http2_head& date();
    http2_head& server();
    http2_head& content_length(std::uint64_t length);

    /// Applies the site's `header` rules (null: none) and returns the head.
    response_head finish(const std::vector<config::header_rule>* rules = nullptr);

  private:
    response_head head_;
};

/// Whether an HTTP/2 message may carry a field of this name (RFC 9113 8.2.2): not Connection
/// nor the fields it would name (Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade).
bool is_http2_field(std::string_view name) noexcept;

}  // namespace spindle::server
