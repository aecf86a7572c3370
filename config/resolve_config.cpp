#include "config/resolve_config.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

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
    // As FrankenPHP: the root resolved (the default), or kept as written, made absolute.
    fs::path written = fs::absolute(site.root, ec).lexically_normal();
    if (written.has_filename() == false && written.has_parent_path()) {
        written = written.parent_path();
    }
    site.document_root = site.resolve_root_symlink ? root.string() : written.string();
    site.root = root.string();
    for (path_root& entry : site.path_roots) {
        const fs::path resolved = fs::canonical(entry.root, ec);
        if (ec || !fs::is_directory(resolved)) {
            throw located_error(entry.origin, "root " + entry.root + " for " + entry.match +
                                                  " is not a readable directory");
        }
        entry.root = resolved.string();
    }
    if (site.x_sendfile) {
        // Canonical, so that a file's real path can be checked against them by prefix.
        auto canonical_directory = [&](std::string& dir) {
            const fs::path resolved = fs::canonical(dir, ec);
            if (ec || !fs::is_directory(resolved)) {
                throw located_error(site.x_sendfile->origin,
                                    "x_sendfile directory " + dir + " is not a readable directory");
            }
            dir = resolved.string();
        };
        for (std::string& dir : site.x_sendfile->roots) {
            canonical_directory(dir);
        }
        for (accel_mapping& mapping : site.x_sendfile->accel_redirect) {
            canonical_directory(mapping.root);
        }
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

// A worker's name for logs and metrics, unique in the server, as FrankenPHP makes it
// (createUniqueWorkerName, caddy/app.go): the given name, else the absolute path of the file;
// a name already taken is qualified with the site's name ("api.example.com:/app/worker.php"),
// then numbered ("/app/worker.php_2"). So the same file serves two sites, one worker each, and
// dashboards built for FrankenPHP find the labels they expect.
std::string unique_worker_name(const worker_config& worker, const std::string& site_name,
                               std::set<std::string>& names) {
    const std::string base = worker.name.empty() ? worker.file : worker.name;
    std::string name = base;
    if (names.contains(name) && !site_name.empty()) {
        name = site_name + ":" + base;
    }
    for (int suffix = 1; names.contains(name); ++suffix) {
        name = base + "_" + std::to_string(suffix);
    }
    names.insert(name);
    return name;
}

// Fills names and thread counts; returns the threads the workers take. `site_name` is the
// site's first host or address, "" for the global workers.
std::size_t resolve_workers(std::vector<worker_config>& workers, const std::string& root,
                            const std::string& site_name, std::size_t cores,
                            std::set<std::string>& names) {
    std::size_t threads = 0;
    std::set<std::string> files;
    for (worker_config& worker : workers) {
        resolve_worker_file(worker, root);
        if (!files.insert(worker.file).second) {
            throw located_error(worker.origin, "worker " + worker.file + " is declared twice");
        }
        worker.name = unique_worker_name(worker, site_name, names);
        if (worker.num == 0) {
            worker.num = 2 * cores;
        }
        threads += worker.num;
    }
    return threads;
}

// Certificate files are read when the server starts (server/tls/tls_certificates.cpp) and again
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

std::vector<std::vector<worker_config>*> all_worker_lists(server_config& config) {
    std::vector<std::vector<worker_config>*> lists{&config.workers};
    for (site_config& site : config.sites) {
        lists.push_back(&site.workers);
    }
    return lists;
}

}  // namespace

bool is_under_root(const std::string& file, const std::string& root) {
    const fs::path relative = fs::path(file).lexically_relative(root);
    return !relative.empty() && *relative.begin() != "..";
}

std::string script_name_under(const std::string& file, const std::string& root) {
    if (!is_under_root(file, root)) {
        return "/" + fs::path(file).filename().string();
    }
    return "/" + fs::path(file).lexically_relative(root).string();
}

void resolve_config(server_config& config, std::size_t cores) {
    cores = std::max<std::size_t>(1, cores);
    std::set<std::pair<std::string, std::string>> answered;  // (address, host)
    check_sockets_agree(config);
    for (site_config& site : config.sites) {
        resolve_root(site);
        if (site.tls && site.tls->from == tls_config::source::files) {
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

    // FrankenPHP's global max_requests restarts classic and worker threads alike; a worker's
    // own max_requests wins. max_memory is inherited the same way.
    for (std::vector<worker_config>* list : all_worker_lists(config)) {
        for (worker_config& worker : *list) {
            if (worker.max_requests == 0) {
                worker.max_requests = config.max_requests;
            }
            if (worker.max_memory == 0) {
                worker.max_memory = config.max_memory;
            }
        }
    }

    std::set<std::string> names;
    std::size_t worker_threads =
        resolve_workers(config.workers, config.sites.front().root, "", cores, names);
    for (site_config& site : config.sites) {
        const std::string site_name = !site.hosts.empty()    ? site.hosts.front()
                                      : !site.listen.empty() ? to_string(site.listen.front())
                                                             : std::string();
        worker_threads += resolve_workers(site.workers, site.root, site_name, cores, names);
    }

    // Autoscaling as FrankenPHP sizes it (calculateMaxThreads): a worker's max_threads lies
    // between its num and the global max_threads; max_threads set only on workers lets the
    // pool grow by what they add; max_threads without num_threads starts the workers' threads
    // and one classic thread, and grows from there.
    std::size_t worker_growth = 0;
    for (std::vector<worker_config>* list : all_worker_lists(config)) {
        for (const worker_config& worker : *list) {
            if (worker.max_threads == 0) {
                continue;
            }
            if (worker.max_threads < worker.num) {
                throw located_error(worker.origin,
                                    "worker max_threads " + std::to_string(worker.max_threads) +
                                        " is below its num " + std::to_string(worker.num));
            }
            if (config.max_threads != 0 && config.max_threads != max_threads_auto &&
                worker.max_threads > config.max_threads) {
                throw located_error(worker.origin, "worker max_threads " +
                                                       std::to_string(worker.max_threads) +
                                                       " is above the global max_threads " +
                                                       std::to_string(config.max_threads));
            }
            worker_growth += worker.max_threads - worker.num;
        }
    }
    if (config.num_threads == 0 && (config.max_threads != 0 || worker_growth > 0)) {
        config.num_threads = worker_threads + 1;
    }
    if (config.max_threads == 0 && worker_growth > 0) {
        config.max_threads = config.num_threads + worker_growth;
    }
    if (config.max_threads != 0 && config.max_threads != max_threads_auto &&
        config.max_threads < std::max(config.num_threads, worker_threads + 1)) {
        throw located_error(config.max_threads_origin,
                            "max_threads " + std::to_string(config.max_threads) +
                                " is below num_threads " +
                                std::to_string(std::max(config.num_threads, worker_threads + 1)) +
                                " (the workers' threads and one for classic scripts)");
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
    // Half the cores: the PHP threads do most of the work of a request, and complete
    // responses leave from them directly. On 2 cores a second I/O thread served as many
    // worker hello requests, for more CPU each: 30.3 us where one took 27.2 us (median of 3,
    // bench/RESULTS.md).
    if (config.io_threads == 0) {
        config.io_threads = std::max<std::size_t>(1, cores / 2);
    }
}

}  // namespace spindle::config
