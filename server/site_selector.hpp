#pragma once

#include <string_view>
#include <vector>

#include "server/http_context.hpp"

namespace spindle::server {

/// The site of `sites` (those listening where the request arrived) that answers `host` (the
/// Host header without port): an exact name first, then a "*.domain" wildcard of one label,
/// then a site without host names. Null when none answers. I/O thread.
const site_context* select_site(const std::vector<const site_context*>& sites,
                                std::string_view host) noexcept;

}  // namespace spindle::server
