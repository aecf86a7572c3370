#pragma once

#include <string_view>

namespace spindle::server {

/// GET / of the admin endpoint: one self-contained HTML page (inline CSS and script, no
/// external asset, no build step) that polls /threads every second and shows one row per PHP
/// thread with its group, state, requests, request rate and the request it runs, live.
std::string_view status_page_html() noexcept;

/// The Content-Security-Policy the page is served with: its inline script and style, requests
/// to its own origin, nothing else.
inline constexpr std::string_view status_page_csp =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

}  // namespace spindle::server
