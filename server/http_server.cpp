#include "server/http_server.hpp"

#include <algorithm>
#include <csignal>
#include <optional>

#include <spdlog/spdlog.h>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>

#include "config/json_config.hpp"
#include "server/admin_server.hpp"
#include "server/listener.hpp"
#include "worker/pool.hpp"

namespace spindle::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

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

}  // namespace

http_server::http_server(const config::server_config& config, std::vector<site_context> sites,
                         worker::pool& pool)
    : config_(config),
      context_{config, std::move(sites), pool},
      ioc_(),
      control_(net::make_strand(ioc_)),
      signals_(control_, SIGINT, SIGTERM),
      restart_signals_(control_, SIGUSR1),
      drain_timer_(control_),
      restart_grace_timer_(control_) {
    // One listener per distinct address; the sites that list it share it and are told apart
    // by their host names.
    std::vector<config::listen_address> addresses;
    for (const config::site_config& site : config.sites) {
        for (const config::listen_address& address : site.listen) {
            if (std::find(addresses.begin(), addresses.end(), address) == addresses.end()) {
                addresses.push_back(address);
            }
        }
    }
    for (const config::listen_address& address : addresses) {
        std::vector<const site_context*> listening;
        for (std::size_t i = 0; i < config.sites.size(); ++i) {
            const auto& listen = config.sites[i].listen;
            if (std::find(listen.begin(), listen.end(), address) != listen.end()) {
                listening.push_back(&context_.sites[i]);
            }
        }
        try {
            listeners_.push_back(std::make_shared<listener>(ioc_, resolve_endpoint(address),
                                                            context_, std::move(listening)));
        } catch (const std::system_error& e) {
            // Name the site that asked for the address, and where it was written.
            for (const config::site_config& site : config.sites) {
                if (std::find(site.listen.begin(), site.listen.end(), address) !=
                    site.listen.end()) {
                    throw config::located_error(site.origin, e.what());
                }
            }
            throw;
        }
    }
    if (config.admin) {
        try {
            admin_ = std::make_shared<admin_server>(
                ioc_, resolve_endpoint(*config.admin), context_,
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
                });
        } catch (const std::system_error& e) {
            throw config::located_error(config.admin_origin, std::string(e.what()) +
                                                                 " (set admin to another "
                                                                 "address, or off)");
        }
    }
}

http_server::~http_server() {
    stop_io();
}

void http_server::stop_io() {
    ioc_.stop();
    for (auto& t : threads_) {
        if (t.joinable()) {
            t.join();
        }
    }
    threads_.clear();
}

void http_server::start() {
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
    });

    std::size_t io_threads = config_.io_threads;
    if (io_threads == 0) {
        io_threads = std::max(1u, std::thread::hardware_concurrency());
    }
    threads_.reserve(io_threads);
    for (std::size_t i = 0; i < io_threads; ++i) {
        threads_.emplace_back([this] { ioc_.run(); });
    }
}

void http_server::serve() {
    net::post(control_, [this] {
        // A signal during start-up already began the drain: the sites never open.
        if (draining_) {
            return;
        }
        serving_ = true;
        for (auto& l : listeners_) {
            auto endpoint = l->local_endpoint();
            std::string host = endpoint.address().is_v6()
                                   ? "[" + endpoint.address().to_string() + "]"
                                   : endpoint.address().to_string();
            spdlog::get("server")->info("listening on http://{}:{}", host, endpoint.port());
            l->run();
        }
    });
    for (auto& t : threads_) {
        t.join();
    }
    threads_.clear();
}

void http_server::on_signal(const boost::system::error_code& ec, int signal) {
    if (ec) {
        return;
    }
    if (draining_) {
        spdlog::get("server")->warn("second signal ({}): stopping now", signal);
        ioc_.stop();
        return;
    }
    draining_ = true;
    context_.stopping.store(true);
    restart_signals_.cancel();
    restart_grace_timer_.cancel();
    if (!serving_) {
        // Still booting PHP threads: give up the start; main stops the rest.
        spdlog::get("server")->info("signal {} during start-up: stopping", signal);
        context_.pool.cancel_start();
        ioc_.stop();
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

void http_server::check_drained() {
    auto stats = context_.pool.stats();
    bool idle = stats.busy == 0 && stats.queued == 0 && context_.active_responses.load() == 0;
    if (idle || std::chrono::steady_clock::now() >= drain_deadline_) {
        if (!idle) {
            spdlog::get("server")->warn("grace period over with requests still running; exiting");
        }
        ioc_.stop();
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
