#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "config/server_config.hpp"
#include "server/routing/router.hpp"
#include "server/routing/server_snapshot.hpp"

namespace spindle::acme {
class challenge_store;
}

namespace spindle::server {

/// What answers a request, decided from its Host, path and query alone: the site, then the
/// ACME challenge, HTTPS redirect, `respond` rules, worker `match` patterns and the site's
/// router, in Caddy's order. Protocol-neutral: the HTTP/1.1 and HTTP/2 connections both ask
/// here and carry out the answer each in its own framing. Pure but for the router's
/// filesystem checks; any thread.
struct request_decision {
    enum class action {
        answer,          ///< Spindle's short answer: `status` with `reason` as the text
        fixed,           ///< a `respond` rule's (or an ACME challenge's) answer: `fixed`
        redirect_https,  ///< 308 to the same host and target over https, on `https_port`
        redirect,        ///< 308 to `r.location` (the router's canonical form)
        static_file,     ///< `r.file`
        php,             ///< the script in `r`
    };
    action what = action::answer;
    int status = 0;
    std::string reason;
    /// With answer: the connection cannot go on (a malformed request).
    bool must_close = false;
    config::respond_rule fixed;
    std::uint16_t https_port = 0;
    /// The site answering; null when none is configured for the host, or for an ACME answer
    /// (no site's header rules apply to it).
    const site_context* site = nullptr;
    /// The root or path root resolving the request (DOCUMENT_ROOT); null before routing.
    const router_options* router = nullptr;
    route r;
};

/// Decides how to answer a request that arrived at `address`. `host` is the Host (or
/// :authority) as sent, `raw_path` and `query` the request-target's parts, still encoded;
/// `is_tls`: the connection is encrypted; `challenges` (may be null) answers HTTP-01.
request_decision decide_request(const server_snapshot& snapshot,
                                const config::listen_address& address, std::string_view host,
                                std::string_view raw_path, std::string_view query, bool is_tls,
                                const acme::challenge_store* challenges);

}  // namespace spindle::server
