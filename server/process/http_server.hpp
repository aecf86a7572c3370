#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <nlohmann/json.hpp>

#include "acme/x509_tools.hpp"
#include "config/server_config.hpp"
#include "server/admin/reload_result.hpp"
#include "server/http1/io_threads.hpp"
#include "server/http1/unix_socket.hpp"
#include "server/process/file_watcher.hpp"
#include "server/process/server_process_role.hpp"
#include "server/routing/http_context.hpp"
#include "server/routing/snapshot_builder.hpp"

namespace spindle::worker {
class pool;
struct group_options;
}  // namespace spindle::worker

namespace spindle::server {

class admin_server;
class listener;
class systemd_notifier;

/// Where a reload's configuration comes from when only its source is named (SIGHUP): the
/// file the server was started with, read and resolved again. Returns the configuration
/// before resolve_config and its JSON document; throws config_error. Reload thread.
using config_source = std::function<std::pair<config::server_config, nlohmann::json>()>;

/// Builds a snapshot for a resolved configuration (snapshot_builder.hpp), making pool groups
/// through `add_group`. Supplied by main, which owns the engine. Reload thread.
using snapshot_factory = std::function<built_snapshot(
    const config::server_config&, const std::vector<worker_generation>&,
    const std::function<std::size_t(worker::group_options)>& add_group)>;

/// The HTTP front end: the sites' listeners, the admin endpoint, the I/O threads that run
/// every connection, the signals that stop the server or restart its workers, and reloads.
/// Built and driven by the control thread (main):
///
///   http_server server(...);  // binds every address (a port in use fails here)
///   server.start();           // I/O threads run; the admin endpoint answers (readyz: 503)
///   pool.start();             // PHP threads boot; false if a signal stopped the start
///   server.serve();           // the sites accept connections until SIGTERM, then drain
///
/// Signal handling and the drain run on one strand (control_); reloads (SIGHUP, SIGUSR1,
/// POST /load, POST /workers/restart, `watch`) run one at a time on the reload thread.
class http_server {
  public:
    /// Binds every address of `first` (its TLS certificates load here), then the admin
    /// address, before anything is served; an address that cannot be bound throws
    /// config_error at the setting that asked for it. `source` re-reads the configuration for
    /// SIGHUP; `factory` builds the snapshots of reloads. `notifier` hears when the server is
    /// ready, reloads and stops (systemd; it outlives the server).
    http_server(std::shared_ptr<server_snapshot> first, worker::pool& pool, config_source source,
                snapshot_factory factory, const systemd_notifier& notifier,
                std::optional<server_process_role> role = std::nullopt);
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

    /// The one entry point of a configuration reload. Validates `next` (as read, before
    /// resolve_config: roots and worker files are resolved again, so a `current` symlink
    /// switched to another release is followed), boots a new generation of every worker
    /// that changed and waits until it is ready, opens new addresses, then publishes the new
    /// configuration for requests that start from now on; removed addresses close, replaced
    /// worker generations drain and end. When anything fails, nothing changes. Blocks until
    /// done; any thread but the I/O threads and the control strand (a systemd notifier may
    /// wrap it). Reloads run one at a time.
    reload_result reload(config::server_config next, nlohmann::json document,
                         const std::string& why);
    /// reload() of what `source` reads now (SIGHUP, `spindle reload` without a body).
    reload_result reload_from_source(const std::string& why);
    /// Boots a new generation of every worker from the running configuration, with roots and
    /// files resolved again, and retires the old ones once it is ready (SIGUSR1,
    /// POST /workers/restart, `watch`). Same thread rules as reload().
    reload_result restart_workers(const std::string& why);

  private:
    /// reload() and restart_workers(): `fresh_workers` boots every worker anew.
    reload_result apply(config::server_config next, nlohmann::json document, const std::string& why,
                        bool fresh_workers);
    void on_signal(const boost::system::error_code& ec, int signal);
    void on_restart_signal(const boost::system::error_code& ec, int signal);
    void on_reload_signal(const boost::system::error_code& ec, int signal);
    /// Runs `task` on the reload thread, unless the server drains.
    void post_reload(std::function<void()> task);
    /// Reads every HTTPS listener's certificates again (POST /tls/reload); a listener whose
    /// files fail keeps its old ones. Returns the failures. Any thread.
    std::vector<std::string> reload_tls(const std::string& why);
    /// reload_tls between systemd's RELOADING=1 and READY=1 (POST /tls/reload). Any thread.
    std::vector<std::string> reload_certificates(const std::string& why);
    /// Makes the certificate manager of the sites whose certificates Spindle obtains (ACME or
    /// the local CA), if any (control thread, before the listeners).
    void start_certificate_manager(const config::server_config& config);
    /// The current certificate of a managed site (null for certificate files); throws
    /// config_error for a managed site the manager was not started with.
    std::function<acme::pem_pair()> managed_certificate(const config::site_config& site) const;
    /// Opens a listener for each address of `snapshot` not in `listeners_` (loading its
    /// certificates) into `made`; throws config_error at the site that asked for an address
    /// that fails. Reload thread, or the control thread before start().
    void open_listeners(server_snapshot& snapshot, std::vector<std::shared_ptr<listener>>& made);
    /// Sets the port a redirect_to_https entry sends clients to (port 0 is known only once
    /// bound).
    void set_redirect_ports(server_snapshot& snapshot,
                            const std::vector<std::shared_ptr<listener>>& all) const;
    void check_drained();
    /// The end of the drain: stops the pool handing out queued requests, makes PHP threads
    /// stop waiting for clients, stops the I/O threads (control_ strand).
    void abandon_responses();
    void stop_io();

    config_source source_;
    snapshot_factory factory_;
    const systemd_notifier& notifier_;
    http_context context_;
    // Declared after context_ and before the objects that use it, so that handlers still
    // queued when it is destroyed (sessions holding context_) go before context_ does.
    io_threads io_;
    boost::asio::strand<boost::asio::io_context::executor_type> control_;
    /// Obtains and renews the managed certificates (its own ACME thread); null when no site
    /// has one. Built before the listeners, whose TLS contexts read its certificates.
    std::unique_ptr<acme::certificate_manager> certificates_;
    /// The hosts of each managed site, by the manager's index.
    std::vector<std::vector<std::string>> managed_hosts_;
    std::vector<std::shared_ptr<listener>> listeners_;  ///< listeners_mutex_
    std::shared_ptr<admin_server> admin_;
    /// Started by the supervisor (processes > 1): the sites' sockets are inherited, the admin
    /// endpoint is private; nullopt for a server on its own.
    std::optional<server_process_role> role_;
    /// The private admin endpoint's socket file (role_ only), removed with the server.
    std::optional<unix_listening_socket> admin_socket_;
    boost::asio::signal_set signals_;
    boost::asio::signal_set restart_signals_;  ///< SIGUSR1: new generation of every worker
    boost::asio::signal_set reload_signals_;   ///< SIGHUP: reload the configuration
    boost::asio::steady_timer drain_timer_;
    std::unique_ptr<file_watcher> watcher_;  ///< workers' `watch`; null when none has one
    std::chrono::steady_clock::time_point drain_deadline_;
    /// Guards the listeners and the two flags between the control strand and a reload; held
    /// only for a few pointer moves.
    std::mutex listeners_mutex_;
    bool draining_ = false;  ///< listeners_mutex_
    bool serving_ = false;   ///< listeners_mutex_: the sites' listeners were started
    /// Held by a reload from start to end: reloads run one at a time.
    std::mutex reload_mutex_;
    /// The reload thread: reloads block on worker boots, which must hold neither an I/O
    /// thread nor the control strand. Last, so it is joined before the rest goes.
    boost::asio::thread_pool reloader_{1};
};

}  // namespace spindle::server
