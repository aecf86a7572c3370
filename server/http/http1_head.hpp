#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/server_config.hpp"

namespace spindle::server {

/// The one writer of HTTP/1.1 response heads: PHP's final and interim (1xx) responses, static
/// files, `respond` rules and Spindle's own short answers all go through it, so the status
/// line, Date, Server and the connection fields are spelt one way. The status is a number
/// handed in by the caller and kept (status()); nothing reads it back out of the bytes.
/// Used on the I/O thread and on PHP threads, one builder per response.
class http1_head {
  public:
    /// Starts "HTTP/1.1 STATUS REASON\r\n"; an empty `reason` is the standard one.
    explicit http1_head(int status, std::string_view reason = {});

    int status() const noexcept { return status_; }

    /// One "Name: value" field line.
    http1_head& field(std::string_view name, std::string_view value);
    /// Field lines already formatted ("Name: value\r\n" each), as callers collect them.
    http1_head& lines(std::string_view formatted);
    /// Date (now, cached per second) and "Server: Spindle", as every Spindle-made head has.
    http1_head& date();
    http1_head& server();
    http1_head& content_length(std::uint64_t length);
    /// Connection management for the client's `http_version` (10 or 11): "close" when the
    /// connection ends after this response, "keep-alive" where HTTP/1.0 needs it said.
    http1_head& connection(bool keep_alive, int http_version);

    /// Ends the head and applies the site's `header` rules (null: none); returns the bytes,
    /// to which the caller may append the body.
    std::string finish(const std::vector<config::header_rule>* rules = nullptr);

  private:
    int status_;
    std::string bytes_;
};

}  // namespace spindle::server
