#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "config/server_config.hpp"
#include "server/file_watcher.hpp"
#include "server/http_context.hpp"
#include "server/io_threads.hpp"

namespace spindle::worker {
class pool;
}

namespace spindle::server {

class admin_server;
class listener;
class systemd_notifier;

/// The HTTP front end: the sites' listeners, the admin endpoint, the I/O threads that run
/// every connection, and the signals that stop the server or restart its workers. Built and
/// driven by the control thread (main):
///
///   http_server server(...);  // binds every address (a port in use fails here)
///   server.start();           // I/O threads run; the admin endpoint answers (readyz: 503)
///   pool.start();             // PHP threads boot; false if a signal stopped the start
///   server.serve();           // the sites accept connections until SIGTERM, then drain
///
/// Signal handling, the drain, worker restarts and SIGHUP certificate reloads run on one
/// strand (control_).
class http_server {
  public:
    /// Binds every listen address of every site, then the admin address, before anything is
    /// served; an address that cannot be bound throws config_error at the setting that asked
    /// for it. `sites` follow config.sites, one for one.
    /// `notifier` hears when the server is ready, reloads and stops (systemd; it outlives the
    /// server).
    http_server(const config::server_config& config, std::vector<site_context> sites,
                worker::pool& pool, const systemd_notifier& notifier);
    /// Stops the I/O threads if they still run and joins them.
    ~http_server();
    http_server(const http_server&) = delete;
    http_server& operator=(const http_server&) = delete;

    /// Starts the `io_threads` I/O threads, the admin endpoint and the signal handlers. A
    /// SIGINT/SIGTERM from now on before serve() cancels the pool's start (control thread).
    void start();

    /// Accepts connections on the sites' addresses until SIGINT/SIGTERM, then drains: no new
    /// connections, in-flight requests finish (up to the grace period), and returns. A second
    /// signal stops at once. Control thread, after start() and a successful pool start.
    void serve();

  private:
    void on_signal(const boost::system::error_code& ec, int signal);
    void on_restart_signal(const boost::system::error_code& ec, int signal);
    void on_reload_signal(const boost::system::error_code& ec, int signal);
    /// What a reload does (SIGHUP, POST /tls/reload), between systemd's RELOADING=1 and READY=1:
    /// today the certificates (reload_tls). Returns the failures. Any thread.
    std::vector<std::string> reload(const std::string& why);
    /// Reads every HTTPS listener's certificates again; a listener
    /// whose files fail keeps its old ones. Returns the failures. Any thread.
    std::vector<std::string> reload_tls(const std::string& why);
    /// Restarts every worker script (SIGUSR1, POST /workers/restart); control_ strand.
    void restart_workers(const std::string& why);
    void check_drained();
    /// The end of the drain: stops the pool handing out queued requests, makes PHP threads
    /// stop waiting for clients, stops the I/O threads (control_ strand).
    void abandon_responses();
    void stop_io();

    const config::server_config& config_;
    const systemd_notifier& notifier_;
    http_context context_;
    // Declared after context_ and before the objects that use it, so that handlers still
    // queued when it is destroyed (sessions holding context_) go before context_ does.
    io_threads io_;
    boost::asio::strand<boost::asio::io_context::executor_type> control_;
    /// Obtains and renews the managed certificates (its own ACME thread); null when no site
    /// has one. Built before the listeners, whose TLS contexts read its certificates.
    std::unique_ptr<acme::certificate_manager> certificates_;
    std::vector<std::shared_ptr<listener>> listeners_;
    std::shared_ptr<admin_server> admin_;
    boost::asio::signal_set signals_;
    boost::asio::signal_set restart_signals_;  ///< SIGUSR1: restart every worker script
    boost::asio::signal_set reload_signals_;   ///< SIGHUP: reload the HTTPS certificates
    boost::asio::steady_timer drain_timer_;
    boost::asio::steady_timer restart_grace_timer_;  ///< interrupts workers stuck in a restart
    std::unique_ptr<file_watcher> watcher_;          ///< workers' `watch`; null when none has one
    std::chrono::steady_clock::time_point drain_deadline_;
    bool draining_ = false;  ///< control_
    bool serving_ = false;   ///< control_: the sites' listeners were started
};

}  // namespace spindle::server
