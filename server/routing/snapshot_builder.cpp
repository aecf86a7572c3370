#include "server/routing/snapshot_builder.hpp"

#include <algorithm>
#include <utility>

#include "config/resolve_config.hpp"
#include "sapi/engine.hpp"
#include "worker/worker_runtime.hpp"

namespace spindle::server {

namespace {

// The routers of a site's `root /path/* DIR` lines: the site's options with another root, the
// longest pattern first (the most specific wins, as in Caddy). A symlink under any of the site's
// roots may lead into the others.
std::vector<path_router> path_routers(const config::site_config& site,
                                      const router_options& site_router) {
    std::vector<path_router> routers;
    for (const config::path_root& entry : site.path_roots) {
        path_router router{entry.match, site_router};
        router.options.root = entry.root;
        router.options.document_root.clear();
        router.options.other_roots.push_back(site.root);
        for (const config::path_root& other : site.path_roots) {
            if (other.root != entry.root) {
                router.options.other_roots.push_back(other.root);
            }
        }
        routers.push_back(std::move(router));
    }
    std::stable_sort(routers.begin(), routers.end(),
                     [](const auto& a, const auto& b) { return a.match.size() > b.match.size(); });
    return routers;
}

void append_pairs(std::string& out, const config::string_pairs& pairs) {
    for (const auto& [name, value] : pairs) {
        out += name;
        out += '=';
        out += value;
        out += '\0';
    }
    out += '\n';
}

// Builds the sites, their routes and the worker groups of one configuration; the pieces the
// constructor of the old main.cpp assembly made, now shared by start-up and reload.
class builder {
  public:
    builder(sapi::engine& engine, const config::server_config& config,
            const std::vector<worker_generation>& running, const snapshot_hooks& hooks)
        : engine_(engine), config_(config), running_(running), hooks_(hooks) {
        if (config.env != hooks.startup_env) {
            base_layers_.push_back(config.env);
        }
    }

    built_snapshot build() {
        built_.snapshot = std::make_shared<server_snapshot>();
        server_snapshot& snap = *built_.snapshot;
        snap.config = config_;
        // Global workers boot in the first site's root, as FrankenPHP's do in Caddy's.
        std::vector<worker_route> global_routes;
        for (std::size_t i = 0; i < config_.workers.size(); ++i) {
            global_routes.push_back(add_worker(config_.workers[i], config_.sites.front().root, {},
                                               "global " + std::to_string(i)));
        }
        for (const config::site_config& site : config_.sites) {
            snap.sites.push_back(build_site(site, global_routes));
        }
        add_addresses();
        return std::move(built_);
    }

  private:
    worker_route add_worker(const config::worker_config& w, const std::string& root,
                            const config::string_pairs& site_env, std::string place) {
        const std::string identity = worker_identity(w, root, site_env);
        std::size_t group = worker::pool::no_group;
        for (const worker_generation& g : running_) {
            if (g.name == w.name && g.identity == identity) {
                group = g.group;
            }
        }
        const std::string script_name = config::script_name_under(w.file, root);
        if (group == worker::pool::no_group) {
            std::vector<config::string_pairs> layers = base_layers_;
            if (!site_env.empty()) {
                layers.push_back(site_env);
            }
            layers.push_back(w.env);
            sapi::worker_script script{w.name, w.file, root, script_name,
                                       engine_.add_environment(layers)};
            auto runtime = std::make_shared<worker::worker_runtime>(
                engine_, std::move(script),
                worker::worker_policy{{w.max_requests, w.max_memory}, w.max_consecutive_failures});
            // Without a max_threads of its own, a worker may grow as far as the pool's
            // max_threads lets it (FrankenPHP's isAtThreadLimit).
            group =
                hooks_.add_group({w.name, w.num, std::move(runtime),
                                  w.max_threads != 0 ? w.max_threads : worker::unlimited_threads});
            built_.new_groups.push_back(group);
        }
        built_.snapshot->workers.push_back({w.name, std::move(place), identity, group});
        // A request `match`ed to a worker outside the root has no URL path of its own:
        // SCRIPT_NAME, PHP_SELF and DOCUMENT_URI are empty, as FrankenPHP leaves them.
        return worker_route{w.file,
                            config::is_under_root(w.file, root) ? script_name : std::string(),
                            w.match, group};
    }

    site_context build_site(const config::site_config& site,
                            const std::vector<worker_route>& global_routes) {
        site_context context;
        context.name =
            site.hosts.empty() ? config::to_string(site.listen.front()) : site.hosts.front();
        context.hosts = site.hosts;
        context.router = {site.root,      site.index, site.file_server,    site.php,
                          site.try_files, site.split, site.follow_symlinks};
        if (site.document_root != site.root) {
            context.router.document_root = site.document_root;
        }
        context.path_routers = path_routers(site, context.router);
        for (const path_router& router : context.path_routers) {
            context.router.other_roots.push_back(router.options.root);
        }
        for (std::size_t i = 0; i < site.workers.size(); ++i) {
            context.workers.push_back(add_worker(site.workers[i], site.root, site.env,
                                                 "site " +
                                                     std::to_string(built_.snapshot->sites.size()) +
                                                     " worker " + std::to_string(i)));
        }
        context.workers.insert(context.workers.end(), global_routes.begin(), global_routes.end());
        for (const worker_route& route : context.workers) {
            context.has_match = context.has_match || !route.match.empty();
            add_resident(context.router, route.file);
            for (path_router& router : context.path_routers) {
                add_resident(router.options, route.file);
            }
        }
        context.headers = site.headers;
        context.responds = site.responds;
        context.respond_after_php = site.respond_after_php;
        std::vector<config::string_pairs> layers = base_layers_;
        if (!site.env.empty()) {
            layers.push_back(site.env);
        }
        context.env_index = layers.empty() ? 0 : engine_.add_environment(layers);
        context.access_log = site.access_log;
        if (site.access_log) {
            hooks_.open_log(context.name, site.access_log_to);
        }
        if (site.encode) {
            context.encode.emplace(*site.encode);
        }
        context.x_sendfile = site.x_sendfile;
        return context;
    }

    // One entry per distinct address; the sites that list it share it and are told apart by
    // their host names. An HTTPS site's redirect_to_https addresses answer its hosts through
    // an extra site entry that only redirects.
    void add_addresses() {
        server_snapshot& snap = *built_.snapshot;
        const std::size_t site_count = config_.sites.size();
        std::vector<std::size_t> redirect_entry(site_count, 0);
        for (std::size_t i = 0; i < site_count; ++i) {
            if (!config_.sites[i].redirect_to_https.empty()) {
                site_context redirect;
                redirect.name = snap.sites[i].name + " (redirect to https)";
                redirect.hosts = config_.sites[i].hosts;
                redirect_entry[i] = snap.sites.size();
                snap.sites.push_back(std::move(redirect));
            }
        }
        const auto lists = [](const std::vector<config::listen_address>& list,
                              const config::listen_address& address) {
            return std::find(list.begin(), list.end(), address) != list.end();
        };
        for (const config::site_config& site : config_.sites) {
            for (const auto* list : {&site.listen, &site.redirect_to_https}) {
                for (const config::listen_address& address : *list) {
                    if (std::none_of(
                            snap.addresses.begin(), snap.addresses.end(),
                            [&](const address_sites& a) { return a.address == address; })) {
                        snap.addresses.push_back({address, {}, nullptr});
                    }
                }
            }
        }
        for (address_sites& entry : snap.addresses) {
            for (std::size_t i = 0; i < site_count; ++i) {
                if (lists(config_.sites[i].listen, entry.address)) {
                    entry.sites.push_back(&snap.sites[i]);
                }
                if (lists(config_.sites[i].redirect_to_https, entry.address)) {
                    entry.sites.push_back(&snap.sites[redirect_entry[i]]);
                }
            }
        }
    }

    sapi::engine& engine_;
    const config::server_config& config_;
    const std::vector<worker_generation>& running_;
    const snapshot_hooks& hooks_;
    std::vector<config::string_pairs> base_layers_;
    built_snapshot built_;
};

}  // namespace

const std::vector<const site_context*>& server_snapshot::sites_at(
    const config::listen_address& address) const {
    static const std::vector<const site_context*> none;
    for (const address_sites& entry : addresses) {
        if (entry.address == address) {
            return entry.sites;
        }
    }
    return none;
}

std::string worker_identity(const config::worker_config& worker, const std::string& root,
                            const config::string_pairs& site_env) {
    std::string identity = worker.file + '\n' + root + '\n' + std::to_string(worker.num) + '\n' +
                           std::to_string(worker.max_threads) + '\n' +
                           std::to_string(worker.max_requests) + '\n' +
                           std::to_string(worker.max_memory) + '\n' +
                           std::to_string(worker.max_consecutive_failures) + '\n';
    append_pairs(identity, site_env);
    append_pairs(identity, worker.env);
    return identity;
}

built_snapshot build_snapshot(sapi::engine& engine, const config::server_config& config,
                              const std::vector<worker_generation>& running,
                              const snapshot_hooks& hooks) {
    return builder(engine, config, running, hooks).build();
}

std::vector<std::string> restart_required(const config::server_config& running,
                                          const config::server_config& next) {
    std::vector<std::string> names;
    const auto check = [&](bool same, const char* name) {
        if (!same) {
            names.emplace_back(name);
        }
    };
    check(running.num_threads == next.num_threads, "num_threads");
    check(running.max_threads == next.max_threads, "max_threads");
    check(running.max_idle_time == next.max_idle_time, "max_idle_time");
    check(running.io_threads == next.io_threads, "io_threads");
    check(running.php_ini_file == next.php_ini_file, "php_ini_file");
    check(running.php_ini == next.php_ini, "php_ini");
    check(running.max_requests == next.max_requests, "max_requests");
    check(running.max_memory == next.max_memory, "max_memory");
    check(running.max_queue == next.max_queue, "max_queue");
    check(running.slowlog_timeout == next.slowlog_timeout, "slowlog_timeout");
    check(running.admin == next.admin, "admin");
    check(running.log_level == next.log_level, "log level");
    check(running.log_format == next.log_format, "log format");
    check(running.limits.response_memory_total == next.limits.response_memory_total,
          "response_memory_total");
    // Read by every connection from the server's context, built once.
    check(running.trusted_proxies == next.trusted_proxies, "trusted_proxies");
    check(running.proxy_protocol == next.proxy_protocol, "proxy_protocol");
    return names;
}

}  // namespace spindle::server
