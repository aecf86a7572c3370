#include "server/routing/site_selector.hpp"

#include <boost/beast/core/string.hpp>

namespace spindle::server {

bool wildcard_matches(std::string_view pattern, std::string_view host) noexcept {
    if (!pattern.starts_with("*.")) {
        return false;
    }
    const std::size_t dot = host.find('.');
    return dot != std::string_view::npos && dot > 0 &&
           boost::beast::iequals(host.substr(dot), pattern.substr(1));
}

namespace {

const site_context* select_among(const std::vector<const site_context*>& sites,
                                 std::string_view host, bool redirects) noexcept {
    const site_context* wildcard = nullptr;
    const site_context* any_host = nullptr;
    for (const site_context* site : sites) {
        if ((site->redirect_https_port != 0) != redirects) {
            continue;
        }
        if (site->hosts.empty()) {
            any_host = any_host != nullptr ? any_host : site;
        }
        for (const std::string& name : site->hosts) {
            if (boost::beast::iequals(name, host)) {
                return site;
            }
            if (wildcard == nullptr && wildcard_matches(name, host)) {
                wildcard = site;
            }
        }
    }
    return wildcard != nullptr ? wildcard : any_host;
}

}  // namespace

const site_context* select_site(const std::vector<const site_context*>& sites,
                                std::string_view host) noexcept {
    if (sites.size() == 1 && sites.front()->hosts.empty()) {
        return sites.front();
    }
    if (const site_context* site = select_among(sites, host, false)) {
        return site;
    }
    return select_among(sites, host, true);
}

}  // namespace spindle::server
