#include "server/routing/request_decision.hpp"

#include "acme/challenge_store.hpp"
#include "server/http/request_headers.hpp"
#include "server/routing/path_matcher.hpp"
#include "server/routing/site_selector.hpp"

namespace spindle::server {
namespace {

// The site's first `respond` rule for a normalised path; null when none matches.
const config::respond_rule* find_respond_rule(const site_context& site, std::string_view path) {
    for (const config::respond_rule& rule : site.responds) {
        if (path_matches(rule.path, path)) {
            return &rule;
        }
    }
    return nullptr;
}

// After the site is known: its respond rules, worker patterns and router, into `d`. Every
// step fills the one decision the caller returns, so no request_decision (a route and a
// respond rule: a dozen strings) is built twice and moved on the way (bench/history.md).
void route_in_site(const site_context& site, std::string_view raw_path, std::string_view query,
                   request_decision& d) {
    if (!site.responds.empty() || site.has_match) {
        // `respond` and worker `match` patterns see the normalised path, as in Caddy.
        if (const std::optional<std::string> path = normalize_path(raw_path)) {
            const config::respond_rule* rule =
                site.respond_after_php ? nullptr : find_respond_rule(site, *path);
            if (rule != nullptr) {
                d.what = request_decision::action::fixed;
                d.fixed = *rule;
                return;
            }
            for (const worker_route& w : site.workers) {
                for (const std::string& pattern : w.match) {
                    if (path_matches(pattern, *path)) {
                        d.what = request_decision::action::php;
                        d.router = &site.router;
                        d.r.kind = route_kind::php;
                        d.r.file = w.file;
                        d.r.script_name = w.script_name;
                        return;
                    }
                }
            }
        }
    }
    d.router = &select_router(site.path_routers, site.router, raw_path);
    d.r = resolve_route(*d.router, raw_path, query);
    switch (d.r.kind) {
        case route_kind::bad_request:
            d.status = 400;
            d.must_close = true;
            break;
        case route_kind::forbidden: d.status = 403; break;
        case route_kind::not_found: {
            // What PHP leaves unanswered goes on to the respond rules ordered after it.
            const std::optional<std::string> path =
                site.respond_after_php ? normalize_path(raw_path) : std::nullopt;
            if (const config::respond_rule* rule =
                    path ? find_respond_rule(site, *path) : nullptr) {
                d.what = request_decision::action::fixed;
                d.fixed = *rule;
                return;
            }
            // An empty body, as Caddy answers a request no route serves.
            d.status = 404;
            return;
        }
        case route_kind::status: d.status = d.r.status; return;
        case route_kind::redirect: d.what = request_decision::action::redirect; return;
        case route_kind::static_file: d.what = request_decision::action::static_file; return;
        case route_kind::php: d.what = request_decision::action::php; return;
    }
    d.reason = d.r.reason;
}

}  // namespace

request_decision decide_request(const server_snapshot& snapshot,
                                const config::listen_address& address, std::string_view host,
                                std::string_view raw_path, std::string_view query, bool is_tls,
                                const acme::challenge_store* challenges) {
    // One object returned on every path: constructed in the caller's storage (NRVO).
    request_decision d;
    // HTTP-01 (RFC 8555 section 8.3): the CA fetches the token over plain HTTP, before any
    // site, redirect or route has a say.
    if (challenges != nullptr && !is_tls &&
        raw_path.starts_with(acme::challenge_store::http_prefix)) {
        const std::string_view token = raw_path.substr(acme::challenge_store::http_prefix.size());
        if (std::optional<std::string> token_answer = challenges->http_answer(token)) {
            d.what = request_decision::action::fixed;
            d.fixed = {"*", 200, std::move(*token_answer)};
            return d;
        }
    }
    const site_context* site = select_site(snapshot.sites_at(address), host_without_port(host));
    if (site == nullptr) {
        d.status = 404;
        d.reason = "no site is configured for this host";
        return d;
    }
    d.site = site;
    if (site->redirect_https_port != 0) {
        d.what = request_decision::action::redirect_https;
        d.https_port = site->redirect_https_port;
    } else {
        route_in_site(*site, raw_path, query, d);
    }
    return d;
}

}  // namespace spindle::server
