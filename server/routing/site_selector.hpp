#pragma once

#include <string_view>
#include <vector>

#include "server/routing/http_context.hpp"

namespace spindle::server {

/// True when `pattern` is "*.domain" and `host` is one label under domain ("a.example.com"
/// under "*.example.com", not "example.com" nor "a.b.example.com"), as in Caddy; ASCII case
/// is ignored.
bool wildcard_matches(std::string_view pattern, std::string_view host) noexcept;

/// The site of `sites` (those listening where the request arrived) that answers `host` (the
/// Host header without port): an exact name first, then a "*.domain" wildcard of one label,
/// then a site without host names. Redirect-only entries (an HTTPS site's redirect from the
/// HTTP port) come after every real site, so that a site written for that address wins, as in
/// Caddy. Null when none answers. I/O thread.
const site_context* select_site(const std::vector<const site_context*>& sites,
                                std::string_view host) noexcept;

}  // namespace spindle::server
