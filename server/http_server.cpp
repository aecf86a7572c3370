#include "server/http_server.hpp"

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
#include "config/watch_pattern.hpp"
#include "server/admin_server.hpp"
#include "server/listener.hpp"
#include "server/systemd_notifier.hpp"
#include "server/tls_certificates.hpp"
#include "worker/pool.hpp"

namespace spindle::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

std::size_t io_thread_count(const config::server_config& config) {
    if (config.io_threads != 0) {
        return config.io_threads;
    }
    // Half the cores: the PHP threads do most of the work of a request, and complete
    // responses leave from them directly. On 2 cores a second I/O thread served as many
    // worker hello requests, for more CPU each: 30.3 us where one took 27.2 us (median of 3,
    // bench/RESULTS.md).
    return std::max(1u, std::thread::hardware_concurrency() / 2);
}

tcp::endpoint resolve_endpoint(const config::listen_address& address) {
    if (address.host.empty()) {
        return {tcp::v4(), address.port};
    }
    std::string host = address.host;
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    if (host == "localhost") {
        host = "127.0.0.1";
    }
    boost::system::error_code ec;
    auto ip = net::ip::make_address(host, ec);
    if (ec) {
        throw std::system_error(ec, "cannot listen on " + address.host +
                                        ": not an IP address (host names other than localhost "
                                        "are not resolved)");
    }
    return {ip, address.port};
}

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

}  // namespace

http_server::http_server(const config::server_config& config, std::vector<site_context> sites,
                         worker::pool& pool, const systemd_notifier& notifier)
    : config_(config),
      notifier_(notifier),
      context_{config, std::move(sites), pool},
      io_(io_thread_count(config)),
      control_(net::make_strand(io_.main())),
      signals_(control_, SIGINT, SIGTERM),
      restart_signals_(control_, SIGUSR1),
      reload_signals_(control_, SIGHUP),
      drain_timer_(control_),
      restart_grace_timer_(control_) {
    // An HTTPS site's redirect_to_https addresses answer its hosts through an extra entry
    // that only redirects; added before any pointer into context_.sites is taken.
    std::vector<std::size_t> redirect_entry(config.sites.size(), 0);
    for (std::size_t i = 0; i < config.sites.size(); ++i) {
        if (!config.sites[i].redirect_to_https.empty()) {
            site_context redirect;
            redirect.name = context_.sites[i].name + " (redirect to https)";
            redirect.hosts = config.sites[i].hosts;
            redirect_entry[i] = context_.sites.size();
            context_.sites.push_back(std::move(redirect));
        }
    }
    // Managed certificates exist (stored, from the local CA, or a self-signed stand-in)
    // before the listeners load them.
    std::vector<std::size_t> managed_index(config.sites.size(), 0);
    {
        std::vector<acme::managed_site> managed;
        bool answers_http = false;
        const config::source_location* first_origin = nullptr;
        for (std::size_t i = 0; i < config.sites.size(); ++i) {
            const config::site_config& site = config.sites[i];
            if (!site.tls || site.tls->from == config::tls_config::source::files) {
                continue;
            }
            managed_index[i] = managed.size();
            managed.push_back({site.hosts, site.tls->from == config::tls_config::source::internal,
                               site.tls->email});
            answers_http = answers_http || !site.redirect_to_https.empty();
            first_origin = first_origin != nullptr ? first_origin : &site.tls->origin;
        }
        if (!managed.empty()) {
            const config::automation_config& automation = config.automation;
            acme::manager_options options;
            options.ca = automation.ca;
            options.email = automation.email;
            options.trusted_roots = automation.trusted_roots;
            options.storage = automation.storage;
            // HTTP-01 where a plain HTTP listener answers the sites' names (their redirect
            // addresses on http_port), TLS-ALPN-01 always: every managed site listens on
            // HTTPS.
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
                    automation.origin.file.empty() && automation.origin.pointer.empty()
                        ? *first_origin
                        : automation.origin,
                    e.what());
            }
            context_.certificates = certificates_.get();
            context_.acme_challenges = &certificates_->challenges();
        }
    }
    // One listener per distinct address; the sites that list it share it and are told apart
    // by their host names.
    std::vector<config::listen_address> addresses;
    for (const config::site_config& site : config.sites) {
        for (const auto* list : {&site.listen, &site.redirect_to_https}) {
            for (const config::listen_address& address : *list) {
                if (std::find(addresses.begin(), addresses.end(), address) == addresses.end()) {
                    addresses.push_back(address);
                }
            }
        }
    }
    const auto lists = [](const std::vector<config::listen_address>& list,
                          const config::listen_address& address) {
        return std::find(list.begin(), list.end(), address) != list.end();
    };
    for (const config::listen_address& address : addresses) {
        std::vector<const site_context*> listening;
        std::vector<tls_site_certificate> certificates;
        for (std::size_t i = 0; i < config.sites.size(); ++i) {
            const config::site_config& site = config.sites[i];
            if (lists(site.listen, address)) {
                listening.push_back(&context_.sites[i]);
                if (address.tls) {
                    tls_site_certificate certificate{site.hosts, *site.tls, nullptr};
                    if (site.tls->from != config::tls_config::source::files) {
                        certificate.managed = [manager = certificates_.get(),
                                               index = managed_index[i]] {
                            return manager->current(index);
                        };
                    }
                    certificates.push_back(std::move(certificate));
                }
            }
            if (lists(site.redirect_to_https, address)) {
                listening.push_back(&context_.sites[redirect_entry[i]]);
            }
        }
        try {
            // Certificates load here, so a bad file fails start-up at its `tls` setting.
            auto tls = address.tls ? std::make_shared<tls_certificate_store>(
                                         std::move(certificates),
                                         certificates_ ? &certificates_->challenges() : nullptr)
                                   : nullptr;
            if (!address.unix_path.empty()) {
                listeners_.push_back(std::make_shared<listener>(
                    io_, address.unix_path, address.unix_mode, context_, std::move(listening)));
            } else {
                listeners_.push_back(std::make_shared<listener>(io_, resolve_endpoint(address),
                                                                context_, std::move(listening),
                                                                std::move(tls)));
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
    // A redirect goes to the port the site's first HTTPS address was bound to (port 0 is
    // only known now).
    for (std::size_t i = 0; i < config.sites.size(); ++i) {
        const config::site_config& site = config.sites[i];
        if (site.redirect_to_https.empty()) {
            continue;
        }
        for (std::size_t a = 0; a < addresses.size(); ++a) {
            if (addresses[a].tls && lists(site.listen, addresses[a])) {
                context_.sites[redirect_entry[i]].redirect_https_port =
                    listeners_[a]->local_endpoint().port();
                break;
            }
        }
    }
    if (config.admin) {
        try {
            admin_ = std::make_shared<admin_server>(
                io_.main(), resolve_endpoint(*config.admin), context_,
                [this]() -> std::optional<std::vector<std::string>> {
                    if (context_.stopping.load()) {
                        return std::nullopt;
                    }
                    net::post(control_, [this] { restart_workers("POST /workers/restart"); });
                    std::vector<std::string> names;
                    for (std::size_t group = 1; group < context_.pool.group_count(); ++group) {
                        names.push_back(context_.pool.group_name(group));
                    }
                    return names;
                },
                [this] { return reload("POST /tls/reload"); });
        } catch (const std::system_error& e) {
            throw config::located_error(config.admin_origin, std::string(e.what()) +
                                                                 " (set admin to another "
                                                                 "address, or off)");
        }
    }
    if (auto patterns = watch_patterns(config); !patterns.empty()) {
        // One watcher for every worker's patterns: a change restarts every worker script, as
        // SIGUSR1 does.
        watcher_ = std::make_unique<file_watcher>(
            control_, std::move(patterns),
            [this](const std::string& path) { restart_workers("watch: " + path + " changed"); });
    }
}

http_server::~http_server() {
    stop_io();
}

void http_server::stop_io() {
    io_.stop();
    io_.join();
}

void http_server::start() {
    if (certificates_) {
        certificates_->start();
    }
    if (admin_) {
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
    if (draining_) {
        spdlog::get("server")->warn("second signal ({}): stopping now", signal);
        abandon_responses();
        return;
    }
    draining_ = true;
    notifier_.stopping();
    context_.stopping.store(true);
    restart_signals_.cancel();
    reload_signals_.cancel();
    restart_grace_timer_.cancel();
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
    signals_.async_wait([this](const boost::system::error_code& e, int s) { on_signal(e, s); });
    drain_deadline_ = std::chrono::steady_clock::now() + config_.grace_period;
    check_drained();
}

void http_server::on_restart_signal(const boost::system::error_code& ec, int signal) {
    if (ec) {
        return;
    }
    restart_workers("signal " + std::to_string(signal));
    restart_signals_.async_wait(
        [this](const boost::system::error_code& e, int s) { on_restart_signal(e, s); });
}

void http_server::on_reload_signal(const boost::system::error_code& ec, int signal) {
    if (ec) {
        return;
    }
    reload("signal " + std::to_string(signal));
    reload_signals_.async_wait(
        [this](const boost::system::error_code& e, int s) { on_reload_signal(e, s); });
}

std::vector<std::string> http_server::reload(const std::string& why) {
    notifier_.reloading();
    std::vector<std::string> errors = reload_tls(why);
    notifier_.ready("reloaded (" + why + ")");
    return errors;
}

std::vector<std::string> http_server::reload_tls(const std::string& why) {
    std::vector<std::string> errors;
    std::size_t reloaded = 0;
    for (const auto& l : listeners_) {
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

void http_server::restart_workers(const std::string& why) {
    if (draining_) {
        return;
    }
    spdlog::get("server")->info("{}: restarting every worker script", why);
    // Group 0 runs classic scripts, which start afresh on every request anyway.
    for (std::size_t group = 1; group < context_.pool.group_count(); ++group) {
        context_.pool.restart_group(group);
    }
    // Requests that outlast the grace period are interrupted so the restart completes.
    restart_grace_timer_.expires_after(config_.worker_restart_grace);
    restart_grace_timer_.async_wait([this](const boost::system::error_code& e) {
        if (e) {
            return;
        }
        for (std::size_t group = 1; group < context_.pool.group_count(); ++group) {
            context_.pool.interrupt_stale(group);
        }
    });
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
