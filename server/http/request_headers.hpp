#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <boost/beast/http/fields.hpp>

#include "sapi/request.hpp"

namespace spindle::server {

// What of a request's header block reaches PHP, and how. Pure functions: the connection's
// thread calls them (http_session), and tests/fuzz/request_fuzz.cpp drives them with PHP.

/// Header names PHP may see: RFC 9110 tokens restricted further to letters, digits and '-', as
/// nginx does by default. A '_' would let "X_Forwarded_For" spoof HTTP_X_FORWARDED_FOR.
bool is_forwardable_header_name(std::string_view name) noexcept;

/// Host = uri-host [":" port] (RFC 9110 7.2): a reg-name of letters, digits, '-', '.', '_', or
/// an IP-literal in brackets, then at most one ':' and digits. Anything else could smuggle
/// paths or headers into SERVER_NAME.
bool is_valid_host(std::string_view host) noexcept;

/// Whether the Transfer-Encoding fields of `fields` name exactly one coding, chunked: the only
/// one read here. Beast frames any list that ends in chunked ("gzip, chunked") as chunked and
/// would hand the still-encoded body on as it is.
bool is_chunked_only(const boost::beast::http::fields& fields) noexcept;

/// "example.com:8080" -> "example.com"; "[::1]:80" -> "[::1]".
std::string_view host_without_port(std::string_view host) noexcept;

/// SERVER_PORT as FrankenPHP (and Caddy's FastCGI transport) sets it: the port the Host header
/// names ("example.com:8080" -> 8080), else the scheme's default, 443 or 80 (RFC 3875 4.1.15
/// wants a port even when the URI leaves it out). Behind a proxy that keeps the client's Host,
/// it is the port the client used, which is what an app building its own URLs needs.
std::uint16_t server_port_of(std::string_view host, bool is_https) noexcept;

/// Appends the fields PHP may see to `out`, in arrival order: forwardable names only, and no
/// "Proxy" (httpoxy, CVE-2016-5385: it would become HTTP_PROXY, which HTTP client libraries
/// read as their proxy setting).
void copy_forwardable_headers(const boost::beast::http::fields& fields,
                              std::vector<sapi::header>& out);

}  // namespace spindle::server
