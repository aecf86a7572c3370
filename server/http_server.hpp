#pragma once

#include <memory>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "config/server_config.hpp"
#include "server/http_context.hpp"

namespace spindle::worker {
class pool;
}

namespace spindle::server {

class listener;

/// The public HTTP front end: listeners, the I/O threads that run every connection, and the
/// signals that stop it. Built and run by the control thread (main).
class http_server {
  public:
    /// Binds every listen address of every site, before anything is served; an address that
    /// cannot be bound throws config_error at the site that asked for it. `sites` follow
    /// config.sites, one for one.
    http_server(const config::server_config& config, std::vector<site_context> sites,
                worker::pool& pool);
    ~http_server();
    http_server(const http_server&) = delete;
    http_server& operator=(const http_server&) = delete;

    /// Accepts connections on `io_threads` threads until SIGINT/SIGTERM, then drains: no new
    /// connections, in-flight requests finish (up to the grace period), and returns. A second
    /// signal stops at once.
    void run();

  private:
    void on_signal(const boost::system::error_code& ec, int signal);
    void on_restart_signal(const boost::system::error_code& ec, int signal);
    void check_drained();

    const config::server_config& config_;
    boost::asio::io_context ioc_;
    http_context context_;
    std::vector<std::shared_ptr<listener>> listeners_;
    boost::asio::signal_set signals_;
    boost::asio::signal_set restart_signals_;  ///< SIGUSR1: restart every worker script
    boost::asio::steady_timer drain_timer_;
    boost::asio::steady_timer restart_grace_timer_;  ///< interrupts workers stuck in a restart
    std::chrono::steady_clock::time_point drain_deadline_;
    bool draining_ = false;
};

}  // namespace spindle::server
