#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/error.hpp>

#include <nlohmann/json.hpp>

#include "server/admin/reload_result.hpp"
#include "server/routing/http_context.hpp"

namespace spindle::server {

/// An answer of the admin endpoint, before it is framed as HTTP.
struct admin_response {
    int status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;  ///< extra fields
};

/// The admin endpoint: a second listener, separate from the sites', served by the same
/// io_context and I/O threads. Plain HTTP/1.1, small and strict: short bodies and headers,
/// a read deadline, a cap on connections, exact paths, and POST only from a local, same-origin
/// client (no cross-site form or DNS-rebound page can restart workers).
///
///   GET /                  status page (HTML + inline JS polling /threads)
///   GET /metrics           Prometheus text format 0.0.4
///   GET /threads           every PHP thread as JSON
///   GET /threads/N/backtrace  the PHP backtrace of the request thread N runs, taken on that
///                          thread (JSON, as the slow log's fields); 404 for no thread N,
///                          409 when it runs no request or it ended first, 504 when the
///                          thread stays in C code (a database call) for backtrace_timeout
///   GET /healthz           200 "ok" while the process runs
///   GET /readyz            200 when every thread booted and the server is not draining; 503
///   POST /workers/restart  restart every worker script, as SIGUSR1 does; 202
///   POST /tls/reload       read every HTTPS certificate again; 200, or 500 naming the files
///                          that failed (their old certificates stay)
///   POST /load             reload with the configuration in the body (Content-Type
///                          text/caddyfile or application/json, as Caddy's /load): 200 with
///                          what changed, 400 with file:line when it is invalid, 500 when it
///                          cannot be applied (a worker that cannot boot); nothing changes then
///   GET /config            the running configuration as JSON (null when it came from flags)
///
/// Unknown paths get 404, other methods 405. HEAD is answered wherever GET is.
/// Constructed, run and stopped by the control thread; sessions run on the I/O threads.
class admin_server : public std::enable_shared_from_this<admin_server> {
  public:
    /// Restarts every worker script the way SIGUSR1 does and returns the workers' names;
    /// nullopt while the server is draining (nothing is restarted then). Any thread.
    using restart_fn = std::function<std::optional<std::vector<std::string>>()>;
    /// Reloads every HTTPS certificate; returns one message per failure (empty: all
    /// reloaded). Any thread.
    using reload_fn = std::function<std::vector<std::string>()>;
    /// Applies a configuration (http_server::reload) away from the I/O threads and calls
    /// `done` with the outcome, on the thread that applied it.
    using load_fn = std::function<void(config::server_config, nlohmann::json,
                                       std::function<void(reload_result)> done)>;

    /// What the POST endpoints do.
    struct actions {
        restart_fn restart_workers;
        reload_fn reload_tls;
        load_fn load;
    };

    /// Binds and listens at once, so a port in use fails start-up; throws std::system_error
    /// naming the address.
    admin_server(boost::asio::io_context& ioc, const boost::asio::ip::tcp::endpoint& endpoint,
                 http_context& context, actions act);

    /// The same on `fd`, a listening Unix socket (open_unix_listener()): a server process's
    /// private endpoint, which only its supervisor queries (server/admin/supervisor_admin.hpp).
    admin_server(boost::asio::io_context& ioc, int fd, http_context& context, actions act);

    /// The bound address (port 0 resolved).
    boost::asio::ip::tcp::endpoint local_endpoint() const;

    /// Starts accepting (any thread).
    void run();

    /// Closes the socket; no new connections (any thread).
    void stop();

    /// Answers one request: `method` and `target` as received, `host` and `origin` the header
    /// values (empty when absent). I/O thread.
    admin_response handle(std::string_view method, std::string_view target, std::string_view host,
                          std::string_view origin) const;

    /// POST /load: parses `body` as `content_type` says, naming it `file` in errors (the
    /// X-Spindle-Config-File field `spindle reload` sends; empty: "POST /load"); answers a bad
    /// configuration at once (400), else hands it to the reload and answers through `done`
    /// when it is applied or refused. I/O thread; `done` runs on another.
    void load(std::string_view content_type, std::string_view file, const std::string& body,
              std::function<void(admin_response)> done) const;

    /// GET /threads/N/backtrace for thread `index`: answers through `done` at once (404, 409,
    /// 503), or from the slot thread once it took the backtrace (200 JSON, or 409 when the
    /// request ended first). I/O thread; `done` may run on a slot thread, at most once.
    void backtrace(std::size_t index, std::function<void(admin_response)> done) const;

    /// How long GET /threads/N/backtrace waits for the thread to reach PHP code.
    static constexpr std::chrono::seconds backtrace_timeout{5};

  private:
    friend class admin_session;

    void do_accept();
    void on_accept(boost::beast::error_code ec, boost::asio::ip::tcp::socket socket);

    boost::asio::io_context& ioc_;
    boost::asio::ip::tcp::acceptor acceptor_;
    http_context& context_;
    const actions actions_;
    std::atomic<std::size_t> sessions_{0};  ///< open admin connections
};

}  // namespace spindle::server
