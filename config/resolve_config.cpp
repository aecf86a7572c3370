#include "config/resolve_config.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <system_error>
#include <utility>

#include "config/json_config.hpp"

namespace spindle::config {

namespace {

namespace fs = std::filesystem;

void resolve_root(site_config& site) {
    std::error_code ec;
    const fs::path root = fs::canonical(site.root, ec);
    if (ec || !fs::is_directory(root)) {
        throw located_error(site.origin,
                            "document root " + site.root + " is not a readable directory");
    }
    site.root = root.string();
    for (path_root& entry : site.path_roots) {
        const fs::path resolved = fs::canonical(entry.root, ec);
        if (ec || !fs::is_directory(resolved)) {
            throw located_error(entry.origin, "root " + entry.root + " for " + entry.match +
                                                  " is not a readable directory");
        }
        entry.root = resolved.string();
    }
}

// A relative worker file: the current directory first, as FrankenPHP does, then the root.
void resolve_worker_file(worker_config& worker, const std::string& root) {
    std::error_code ec;
    const fs::path given(worker.file);
    for (const fs::path& candidate : {given, fs::path(root) / given}) {
        const fs::path resolved = fs::canonical(candidate, ec);
        if (!ec && fs::is_regular_file(resolved)) {
            worker.file = resolved.string();
            return;
        }
        if (given.is_absolute()) {
            break;
        }
    }
    throw located_error(worker.origin, "worker file " + worker.file + " does not exist");
}

// Fills names and thread counts; returns the threads the workers take.
std::size_t resolve_workers(std::vector<worker_config>& workers, const std::string& root,
                            std::size_t cores, std::set<std::string>& names) {
    std::size_t threads = 0;
    std::set<std::string> files;
    for (worker_config& worker : workers) {
        resolve_worker_file(worker, root);
        if (!files.insert(worker.file).second) {
            throw located_error(worker.origin, "worker " + worker.file + " is declared twice");
        }
        if (worker.name.empty()) {
            // The URL path reads best in logs; two sites' /index.php workers need their paths.
            worker.name = script_name_under(worker.file, root);
            if (names.contains(worker.name)) {
                worker.name = worker.file;
            }
        }
        if (!names.insert(worker.name).second) {
            throw located_error(worker.origin, "two workers are named " + worker.name);
        }
        if (worker.num == 0) {
            worker.num = 2 * cores;
        }
        threads += worker.num;
    }
    return threads;
}

// Certificate files are read when the server starts (server/tls_certificates.cpp) and again
// on every reload; absolute paths keep a reload independent of the working directory.
void resolve_tls_files(tls_config& tls) {
    for (std::string* file : {&tls.certificate, &tls.key}) {
        std::error_code ec;
        const fs::path absolute = fs::absolute(*file, ec);
        if (ec || !fs::is_regular_file(absolute, ec)) {
            throw located_error(tls.origin, "TLS file " + *file + " does not exist");
        }
        *file = absolute.lexically_normal().string();
    }
}

// One socket speaks either TLS or plain HTTP: refuse "https://:8443" in one site beside
// ":8443" (or a redirect from it) in another. A Unix socket file has one mode.
void check_sockets_agree(const server_config& config) {
    std::vector<std::pair<listen_address, const site_config*>> seen;
    for (const site_config& site : config.sites) {
        std::vector<listen_address> addresses = site.listen;
        addresses.insert(addresses.end(), site.redirect_to_https.begin(),
                         site.redirect_to_https.end());
        for (const listen_address& address : addresses) {
            for (const auto& [other, owner] : seen) {
                if (same_socket(address, other) && address.tls != other.tls) {
                    throw located_error(site.origin, to_string(address) + " and " +
                                                         to_string(other) +
                                                         " are one socket: it cannot serve both "
                                                         "HTTPS and plain HTTP; use another port");
                }
                if (same_socket(address, other) && address.unix_mode != other.unix_mode) {
                    throw located_error(site.origin, to_string(address) + " and " +
                                                         to_string(other) +
                                                         " are one socket file: give it one "
                                                         "mode");
                }
            }
            seen.emplace_back(address, &site);
        }
    }
}

std::string describe(const listen_address& address, const std::string& host) {
    return (host.empty() ? std::string("any host") : "host " + host) + " on " + to_string(address);
}

}  // namespace

std::string script_name_under(const std::string& file, const std::string& root) {
    const fs::path relative = fs::path(file).lexically_relative(root);
    if (relative.empty() || *relative.begin() == "..") {
        return "/" + fs::path(file).filename().string();
    }
    return "/" + relative.string();
}

void resolve_config(server_config& config, std::size_t cores) {
    cores = std::max<std::size_t>(1, cores);
    std::set<std::pair<std::string, std::string>> answered;  // (address, host)
    check_sockets_agree(config);
    for (site_config& site : config.sites) {
        resolve_root(site);
        if (site.tls) {
            resolve_tls_files(*site.tls);
        }
        // Redirects do not count: a site written for the HTTP port wins over them.
        for (const listen_address& address : site.listen) {
            const std::vector<std::string> hosts =
                site.hosts.empty() ? std::vector<std::string>{""} : site.hosts;
            for (const std::string& host : hosts) {
                if (!answered.emplace(to_string(address), host).second) {
                    throw located_error(site.origin,
                                        "another site already answers " + describe(address, host));
                }
            }
        }
    }

    std::set<std::string> names;
    std::size_t worker_threads =
        resolve_workers(config.workers, config.sites.front().root, cores, names);
    for (site_config& site : config.sites) {
        worker_threads += resolve_workers(site.workers, site.root, cores, names);
    }

    // At least one thread stays for classic scripts (every .php that is not a worker).
    if (config.num_threads == 0) {
        config.num_threads = std::max(2 * cores, worker_threads + 1);
    } else if (config.num_threads < worker_threads + 1) {
        throw config_error("num_threads " + std::to_string(config.num_threads) +
                           " leaves no thread for classic scripts: the workers take " +
                           std::to_string(worker_threads) + "; give at least " +
                           std::to_string(worker_threads + 1));
    }
}

}  // namespace spindle::config
