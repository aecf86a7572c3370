#pragma once

#include <optional>
#include <string_view>

namespace spindle::sapi {

/// A response status that a script set with header("Status: 404 Not Found").
struct cgi_status {
    int code;
    std::string_view reason;  ///< empty: the status's usual reason phrase
};

/// Reads the value of a CGI "Status" header field (RFC 3875, section 6.3.3): three digits for a
/// final status (200-999), then an optional reason phrase after a space. Scripts written for
/// php-fpm or CGI set the status this way, and nginx, Apache's mod_fcgid and Caddy's FastCGI
/// transport all turn it into the status line; nullopt for anything else, which is no status.
std::optional<cgi_status> parse_cgi_status(std::string_view value) noexcept;

}  // namespace spindle::sapi
