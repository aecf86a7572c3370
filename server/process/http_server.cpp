#include "server/process/http_server.hpp"

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <optional>
#include <thread>

#include <spdlog/spdlog.h>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>

#include "acme/certificate_manager.hpp"
#include "config/json_config.hpp"
#include "config/resolve_config.hpp"
#include "config/watch_pattern.hpp"
#include "server/admin/admin_server.hpp"
#include "server/http1/listener.hpp"
#include "server/process/cgroup_limits.hpp"
#include "server/process/systemd_notifier.hpp"
#include "server/routing/server_snapshot.hpp"
#include "server/tls/tls_certificates.hpp"
#include "worker/pool.hpp"

namespace spindle::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

// Every worker's `watch` patterns, made absolute against the current directory as FrankenPHP
// reads them. Validated when the configuration was read.
std::vector<config::watch_pattern> watch_patterns(const config::server_config& config) {
    std::vector<config::watch_pattern> out;
    const std::string cwd = std::filesystem::current_path().string();
    auto add = [&](const std::vector<config::worker_config>& workers) {
        for (const config::worker_config& worker : workers) {
            for (const std::string& text : worker.watch) {
                out.push_back(config::parse_watch_pattern(text, cwd));
            }
        }
    };
    add(config.workers);
    for (const config::site_config& site : config.sites) {
        add(site.workers);
    }
    return out;
}

// How long a new worker generation may take to boot before a reload gives up on it (the old
// generation keeps serving). A framework kernel boots in well under a second; a worker that
// retries with backoff reaches max_consecutive_failures sooner than this.
constexpr std::chrono::seconds generation_boot_limit{60};

std::string describe(const config::listen_address& address) {
    return (address.tls ? "https://" : "") + config::to_string(address);
}

}  // namespace

http_server::http_server(std::shared_ptr<server_snapshot> first, worker::pool& pool,
                         config_source source, snapshot_factory factory,
                         const systemd_notifier& notifier, std::optional<server_process_role> role)
    : source_(std::move(source)),
      factory_(std::move(factory)),
      notifier_(notifier),
      context_(first, pool, first->config),
      io_(first->config.io_threads),
      control_(net::make_strand(io_.main())),
      role_(std::move(role)),
      signals_(control_, SIGINT, SIGTERM),
      restart_signals_(control_, SIGUSR1),
      reload_signals_(control_, SIGHUP),
      drain_timer_(control_) {
    const config::server_config& config = first->config;
    start_certificate_manager(config);
    open_listeners(*first, listeners_);
    set_redirect_ports(*first, listeners_);
    if (config.admin || role_) {
        try {
            admin_server::actions actions{
                [this]() -> std::optional<std::vector<std::string>> {
                    if (context_.stopping.load()) {
                        return std::nullopt;
                    }
                    post_reload([this] { restart_workers("POST /workers/restart"); });
                    std::vector<std::string> names;
                    for (const worker_generation& w : context_.snapshot()->workers) {
                        names.push_back(w.name);
                    }
                    return names;
                },
                [this] { return reload_certificates("POST /tls/reload"); },
                [this](config::server_config next, nlohmann::json document,
                       std::function<void(reload_result)> done) {
                    post_reload([this, next = std::move(next), document = std::move(document),
                                 done = std::move(done)]() mutable {
                        done(reload(std::move(next), std::move(document), "POST /load"));
                    });
                }};
            // A supervised process answers its supervisor alone, on a socket file only the
            // server's user may open; the supervisor serves the configured address.
            if (role_) {
                admin_socket_ = open_unix_listener(role_->admin_path, 0600);
                admin_ = std::make_shared<admin_server>(io_.main(), admin_socket_->fd, context_,
                                                        std::move(actions));
            } else {
                admin_ = std::make_shared<admin_server>(io_.main(), resolve_endpoint(*config.admin),
                                                        context_, std::move(actions));
            }
        } catch (const std::system_error& e) {
            throw config::located_error(config.admin_origin, std::string(e.what()) +
                                                                 " (set admin to another "
                                                                 "address, or off)");
        }
    }
    if (auto patterns = watch_patterns(config); !patterns.empty()) {
        // One watcher for every worker's patterns: a change boots a new generation of every
        // worker, as SIGUSR1 does.
        watcher_ = std::make_unique<file_watcher>(
            control_, std::move(patterns), [this](const std::string& path) {
                post_reload([this, path] { restart_workers("watch: " + path + " changed"); });
            });
    }
}

void http_server::open_listeners(server_snapshot& snapshot,
                                 std::vector<std::shared_ptr<listener>>& made) {
    const config::server_config& config = snapshot.config;
    const auto lists = [](const std::vector<config::listen_address>& list,
                          const config::listen_address& address) {
        return std::find(list.begin(), list.end(), address) != list.end();
    };
    for (address_sites& entry : snapshot.addresses) {
        const config::listen_address& address = entry.address;
        std::shared_ptr<listener> existing;
        {
            std::lock_guard lock(listeners_mutex_);
            for (const auto& l : listeners_) {
                if (l->address() == address) {
                    existing = l;
                }
            }
        }
        try {
            // Certificates load here, so a bad file fails start-up (or the reload) at its
            // `tls` setting.
            if (address.tls) {
                std::vector<tls_site_certificate> certificates;
                for (const config::site_config& site : config.sites) {
                    if (lists(site.listen, address)) {
                        certificates.push_back({site.hosts, *site.tls, managed_certificate(site)});
                    }
                }
                entry.tls = std::make_shared<tls_certificate_store>(
                    std::move(certificates), config.protocols,
                    certificates_ ? &certificates_->challenges() : nullptr);
            }
            if (existing) {
                continue;
            }
            if (role_) {
                // Every server process accepts on the supervisor's sockets; one it bound alone
                // would serve a share of nobody's traffic.
                const std::optional<int> fd = role_->take_socket(config::to_string(address));
                if (!fd) {
                    throw config::config_error(
                        "with processes > 1 the supervisor opens every "
                        "address at start: restart the server to listen "
                        "on " +
                        describe(address));
                }
                made.push_back(std::make_shared<listener>(
                    io_, *fd,
                    address.unix_path.empty() ? resolve_endpoint(address).protocol() : tcp::v4(),
                    context_, address, entry.tls));
            } else if (!address.unix_path.empty()) {
                made.push_back(std::make_shared<listener>(io_, context_, address));
            } else {
                made.push_back(std::make_shared<listener>(io_, resolve_endpoint(address), context_,
                                                          address, entry.tls));
            }
        } catch (const std::system_error& e) {
            // Name the site that asked for the address, and where it was written.
            for (const config::site_config& site : config.sites) {
                if (lists(site.listen, address) || lists(site.redirect_to_https, address)) {
                    throw config::located_error(site.origin, e.what());
                }
            }
            throw;
        }
    }
}

void http_server::set_redirect_ports(server_snapshot& snapshot,
                                     const std::vector<std::shared_ptr<listener>>& all) const {
    // A redirect goes to the port the site's first HTTPS address was bound to (port 0 is
    // only known now).
    const config::server_config& config = snapshot.config;
    std::size_t redirect_entry = config.sites.size();
    for (const config::site_config& site : config.sites) {
        if (site.redirect_to_https.empty()) {
            continue;
        }
        site_context& redirect = snapshot.sites[redirect_entry++];
        for (const config::listen_address& address : site.listen) {
            const auto bound = std::find_if(all.begin(), all.end(),
                                            [&](const auto& l) { return l->address() == address; });
            if (address.tls && bound != all.end()) {
                redirect.redirect_https_port = (*bound)->local_endpoint().port();
                break;
            }
        }
    }
}

http_server::~http_server() {
    stop_io();
    reloader_.join();
    if (admin_socket_) {
        remove_unix_socket(*admin_socket_);
    }
}

void http_server::stop_io() {
    io_.stop();
    io_.join();
}

void http_server::start_certificate_manager(const config::server_config& config) {
    // Managed certificates exist (stored, from the local CA, or a self-signed stand-in)
    // before the listeners load them.
    std::vector<acme::managed_site> managed;
    bool answers_http = false;
    const config::source_location* first_origin = nullptr;
    for (const config::site_config& site : config.sites) {
        if (!site.tls || site.tls->from == config::tls_config::source::files) {
            continue;
        }
        managed_hosts_.push_back(site.hosts);
        managed.push_back(
            {site.hosts, site.tls->from == config::tls_config::source::internal, site.tls->email});
        answers_http = answers_http || !site.redirect_to_https.empty();
        first_origin = first_origin != nullptr ? first_origin : &site.tls->origin;
    }
    if (managed.empty()) {
        return;
    }
    const config::automation_config& automation = config.automation;
    acme::manager_options options;
    options.ca = automation.ca;
    options.email = automation.email;
    options.trusted_roots = automation.trusted_roots;
    options.storage = automation.storage;
    // HTTP-01 where a plain HTTP listener answers the sites' names (their redirect addresses
    // on http_port), TLS-ALPN-01 always: every managed site listens on HTTPS.
    if (answers_http) {
        options.challenges.push_back(acme::challenge_type::http_01);
    }
    options.challenges.push_back(acme::challenge_type::tls_alpn_01);
    try {
        certificates_ = std::make_unique<acme::certificate_manager>(
            std::move(options), std::move(managed), [this](const std::string& why) {
                // ACME thread: the listeners' sets are rebuilt on the control strand.
                net::post(control_, [this, why] { reload_tls("acme: " + why); });
            });
    } catch (const std::runtime_error& e) {
        throw config::located_error(
            automation.origin.file.empty() && automation.origin.pointer.empty() ? *first_origin
                                                                                : automation.origin,
            e.what());
    }
    context_.certificates = certificates_.get();
    context_.acme_challenges = &certificates_->challenges();
}

std::function<acme::pem_pair()> http_server::managed_certificate(
    const config::site_config& site) const {
    if (!site.tls || site.tls->from == config::tls_config::source::files) {
        return nullptr;
    }
    // The manager obtains certificates for the sites of the configuration the server started
    // with; a reload that adds a managed name needs a restart (restart_required says so).
    const auto found = std::find(managed_hosts_.begin(), managed_hosts_.end(), site.hosts);
    if (found == managed_hosts_.end()) {
        throw config::config_error(
            "a site whose certificate Spindle obtains was added or renamed by a reload: restart "
            "the server to obtain it",
            site.tls->origin.file, site.tls->origin.line);
    }
    return [manager = certificates_.get(), index = std::size_t(found - managed_hosts_.begin())] {
        return manager->current(index);
    };
}

void http_server::start() {
    if (certificates_) {
        certificates_->start();
    }
    if (admin_ && role_) {
        spdlog::get("server")->info("private admin endpoint on unix/{} (for the supervisor)",
                                    role_->admin_path);
        admin_->run();
    } else if (admin_) {
        auto endpoint = admin_->local_endpoint();
        std::string host = endpoint.address().is_v6() ? "[" + endpoint.address().to_string() + "]"
                                                      : endpoint.address().to_string();
        spdlog::get("server")->info("admin endpoint on http://{}:{}", host, endpoint.port());
        admin_->run();
    }
    net::post(control_, [this] {
        signals_.async_wait(
            [this](const boost::system::error_code& ec, int signal) { on_signal(ec, signal); });
        restart_signals_.async_wait([this](const boost::system::error_code& ec, int signal) {
            on_restart_signal(ec, signal);
        });
        reload_signals_.async_wait([this](const boost::system::error_code& ec, int signal) {
            on_reload_signal(ec, signal);
        });
        if (watcher_) {
            watcher_->start();
        }
    });
    io_.start();
}

void http_server::serve() {
    net::post(control_, [this] {
        std::lock_guard lock(listeners_mutex_);
        // A signal during start-up already began the drain: the sites never open.
        if (draining_) {
            return;
        }
        serving_ = true;
        for (auto& l : listeners_) {
            spdlog::get("server")->info("listening on {}", l->describe());
            l->run();
        }
        // main calls serve() once every PHP thread booted: systemd may now send traffic.
        notifier_.ready("serving " + std::to_string(listeners_.size()) + " address(es)");
    });
    io_.join();
}

void http_server::on_signal(const boost::system::error_code& ec, int signal) {
    if (ec) {
        return;
    }
    std::unique_lock lock(listeners_mutex_);
    if (draining_) {
        lock.unlock();
        spdlog::get("server")->warn("second signal ({}): stopping now", signal);
        abandon_responses();
        return;
    }
    draining_ = true;
    context_.stopping.store(true);
    notifier_.stopping();
    restart_signals_.cancel();
    reload_signals_.cancel();
    if (watcher_) {
        watcher_->stop();
    }
    if (!serving_) {
        // Still booting PHP threads: give up the start; main stops the rest.
        spdlog::get("server")->info("signal {} during start-up: stopping", signal);
        context_.pool.cancel_start();
        io_.stop();
        return;
    }
    spdlog::get("server")->info("signal {}: no new connections, finishing in-flight requests",
                                signal);
    for (auto& l : listeners_) {
        l->stop();
    }
    lock.unlock();
    signals_.async_wait([this](const boost::system::error_code& e, int s) { on_signal(e, s); });
    drain_deadline_ = std::chrono::steady_clock::now() + context_.snapshot()->config.grace_period;
    check_drained();
}

void http_server::on_restart_signal(const boost::system::error_code& ec, int signal) {
    if (ec) {
        return;
    }
    post_reload([this, signal] { restart_workers("signal " + std::to_string(signal)); });
    restart_signals_.async_wait(
        [this](const boost::system::error_code& e, int s) { on_restart_signal(e, s); });
}

void http_server::on_reload_signal(const boost::system::error_code& ec, int signal) {
    if (ec) {
        return;
    }
    post_reload([this, signal] {
        // systemd's ExecReload waits between RELOADING=1 and READY=1.
        notifier_.reloading();
        const reload_result result = reload_from_source("signal " + std::to_string(signal));
        notifier_.ready(result.applied ? "configuration reloaded"
                                       : "configuration not reloaded: " + result.error);
    });
    reload_signals_.async_wait(
        [this](const boost::system::error_code& e, int s) { on_reload_signal(e, s); });
}

void http_server::post_reload(std::function<void()> task) {
    net::post(reloader_, std::move(task));
}

reload_result http_server::reload_from_source(const std::string& why) {
    std::pair<config::server_config, nlohmann::json> next;
    try {
        next = source_();
    } catch (const std::exception& e) {
        reload_result result;
        result.invalid = true;
        result.error = e.what();
        context_.set_reload_error(std::make_shared<const std::string>(result.error));
        spdlog::get("server")->error("{}: configuration not reloaded: {}; the running one stays",
                                     why, result.error);
        return result;
    }
    return reload(std::move(next.first), std::move(next.second), why);
}

reload_result http_server::reload(config::server_config next, nlohmann::json document,
                                  const std::string& why) {
    return apply(std::move(next), std::move(document), why, false);
}

reload_result http_server::restart_workers(const std::string& why) {
    spdlog::get("server")->info(
        "{}: restarting every worker script (a new generation each; the old ones serve until "
        "it is ready)",
        why);
    const std::shared_ptr<const server_snapshot> current = context_.snapshot();
    return apply(current->source, current->document, why, true);
}

reload_result http_server::apply(config::server_config next, nlohmann::json document,
                                 const std::string& why, bool fresh_workers) {
    std::lock_guard reloading(reload_mutex_);
    auto log = spdlog::get("server");
    reload_result result;
    const auto fail = [&](std::string error) {
        result.error = std::move(error);
        log->error("{}: not applied: {}; the running configuration stays", why, result.error);
        context_.set_reload_error(std::make_shared<const std::string>(result.error));
        return result;
    };
    {
        std::lock_guard lock(listeners_mutex_);
        if (draining_ || !serving_) {
            return fail(draining_ ? "the server is shutting down" : "the server is still starting");
        }
    }
    const std::shared_ptr<const server_snapshot> current = context_.snapshot();
    config::server_config source = next;
    try {
        // The CPUs the start derived its defaults from (main.cpp), so that an unchanged
        // configuration resolves to the same thread counts.
        config::resolve_config(
            next, available_cpus(std::thread::hardware_concurrency(), current_cgroup_limits()));
    } catch (const std::exception& e) {
        result.invalid = true;
        return fail(e.what());
    }
    result.restart_required = restart_required(current->config, next);

    // New worker generations boot beside the old ones; none is routed to before publish().
    worker::pool& pool = context_.pool;
    std::vector<std::size_t> new_groups;
    const auto give_up = [&](std::string error) {
        for (std::size_t group : new_groups) {
            pool.retire_group(group, worker::pool::no_group);
        }
        return fail(std::move(error));
    };
    built_snapshot built;
    try {
        built = factory_(next, fresh_workers ? std::vector<worker_generation>{} : current->workers,
                         [&](worker::group_options options) {
                             const std::size_t group = pool.add_group(std::move(options));
                             new_groups.push_back(group);
                             return group;
                         });
    } catch (const std::exception& e) {
        return give_up(e.what());
    }
    server_snapshot& snapshot = *built.snapshot;
    snapshot.source = std::move(source);
    snapshot.document = std::move(document);
    for (std::size_t group : new_groups) {
        if (std::optional<std::string> error = pool.wait_ready(group, generation_boot_limit)) {
            return give_up("worker " + pool.group_name(group) + " could not boot: " + *error);
        }
        result.workers_started.push_back(pool.group_name(group));
    }

    std::vector<std::shared_ptr<listener>> made;
    try {
        open_listeners(snapshot, made);
    } catch (const std::exception& e) {
        return give_up(e.what());
    }
    std::vector<std::shared_ptr<listener>> removed;
    {
        std::lock_guard lock(listeners_mutex_);
        if (draining_) {
            return give_up("the server is shutting down");
        }
        std::vector<std::shared_ptr<listener>> kept;
        for (const auto& l : listeners_) {
            const auto entry =
                std::find_if(snapshot.addresses.begin(), snapshot.addresses.end(),
                             [&](const address_sites& a) { return a.address == l->address(); });
            if (entry == snapshot.addresses.end()) {
                removed.push_back(l);
                continue;
            }
            // The address stays, and so does its socket: no connection is refused. Its
            // connections keep the certificate store, which takes the new certificates.
            if (l->tls() && entry->tls) {
                l->tls()->replace_with(*entry->tls);
                entry->tls = l->tls();
            }
            kept.push_back(l);
        }
        for (const auto& l : made) {
            kept.push_back(l);
            result.listeners_added.push_back(describe(l->address()));
            log->info("{}: listening on {}", why, l->describe());
            l->run();
        }
        listeners_ = std::move(kept);
        set_redirect_ports(snapshot, listeners_);
        context_.publish(built.snapshot);
    }
    for (const auto& l : removed) {
        result.listeners_removed.push_back(describe(l->address()));
        log->info("{}: no longer listening on {}", why, l->describe());
        l->stop();
    }

    // The generations no longer named by the new configuration drain and end; their queued
    // requests go to the generation that replaces them (the worker declared at the same place).
    std::vector<std::size_t> retired;
    for (const worker_generation& old : current->workers) {
        const bool kept =
            std::any_of(snapshot.workers.begin(), snapshot.workers.end(),
                        [&](const worker_generation& w) { return w.group == old.group; });
        if (kept) {
            continue;
        }
        std::size_t successor = worker::pool::no_group;
        for (const worker_generation& w : snapshot.workers) {
            if (w.place == old.place) {
                successor = w.group;
            }
        }
        pool.retire_group(old.group, successor);
        retired.push_back(old.group);
    }
    if (!retired.empty()) {
        // Requests of the old generations that outlast the grace period are interrupted, so
        // that their threads end.
        auto timer = std::make_shared<net::steady_timer>(control_, next.worker_restart_grace);
        timer->async_wait([this, timer, retired](const boost::system::error_code& e) {
            if (e) {
                return;
            }
            for (std::size_t group : retired) {
                context_.pool.interrupt_busy(group);
            }
        });
    }
    result.applied = true;
    context_.set_reload_error(nullptr);
    log->info(
        "{}: configuration applied ({} new worker generation(s), {} address(es) opened, "
        "{} closed){}",
        why, result.workers_started.size(), result.listeners_added.size(),
        result.listeners_removed.size(),
        result.restart_required.empty() ? "" : "; needs a restart to change: " + [&] {
            std::string names;
            for (const std::string& name : result.restart_required) {
                names += (names.empty() ? "" : ", ") + name;
            }
            return names;
        }());
    return result;
}

std::vector<std::string> http_server::reload_tls(const std::string& why) {
    std::vector<std::string> errors;
    std::size_t reloaded = 0;
    std::vector<std::shared_ptr<listener>> listeners;
    {
        std::lock_guard lock(listeners_mutex_);
        listeners = listeners_;
    }
    for (const auto& l : listeners) {
        if (!l->tls()) {
            continue;
        }
        if (std::optional<std::string> error = l->tls()->reload()) {
            spdlog::get("server")->error(
                "{}: {}; port {} keeps its previous certificates until the files are fixed", why,
                *error, l->local_endpoint().port());
            errors.push_back(std::move(*error));
        } else {
            ++reloaded;
        }
    }
    spdlog::get("server")->info("{}: reloaded the certificates of {} HTTPS address(es)", why,
                                reloaded);
    return errors;
}

std::vector<std::string> http_server::reload_certificates(const std::string& why) {
    notifier_.reloading();
    std::vector<std::string> errors = reload_tls(why);
    notifier_.ready("certificates reloaded (" + why + ")");
    return errors;
}

void http_server::abandon_responses() {
    // No queued request starts from now on: its client could not get the answer. A PHP thread
    // waiting for a client to take its output gives up (php_exchange), so that no PHP thread
    // waits for an I/O thread that no longer runs; main then interrupts the running requests.
    context_.pool.begin_stop();
    context_.responses_abandoned.store(true, std::memory_order_release);
    io_.stop();
}

void http_server::check_drained() {
    // Queued requests whose clients left are not run while the server stops: no one would
    // take their answers (a slow-read attack can leave hundreds of them behind one worker).
    if (const std::size_t dropped = context_.pool.drop_abandoned()) {
        spdlog::get("server")->info("stopping: dropped {} queued request(s) whose client left",
                                    dropped);
    }
    auto stats = context_.pool.stats();
    bool idle = stats.busy == 0 && stats.queued == 0 && context_.active_responses.load() == 0;
    if (idle || std::chrono::steady_clock::now() >= drain_deadline_) {
        if (!idle) {
            spdlog::get("server")->warn("grace period over with requests still running; exiting");
        }
        abandon_responses();
        return;
    }
    drain_timer_.expires_after(std::chrono::milliseconds(20));
    drain_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (!ec) {
            check_drained();
        }
    });
}

}  // namespace spindle::server
