#include "server/admin/admin_server.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <chrono>
#include <optional>
#include <system_error>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "config/config_file.hpp"
#include "config/json_config.hpp"
#include "sapi/backtrace.hpp"
#include "server/admin/admin_views.hpp"
#include "server/admin/status_page.hpp"
#include "server/http1/listener.hpp"
#include "server/process/reload_client.hpp"
#include "server/routing/server_snapshot.hpp"
#include "worker/pool.hpp"

namespace spindle::server {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

// Limits of an admin request: nothing it accepts needs more.
constexpr std::uint32_t header_limit = 8 * 1024;
// A configuration for POST /load: a large Caddyfile or JSON document is a few tens of KiB.
constexpr std::uint64_t body_limit = 1024 * 1024;
constexpr auto read_timeout = std::chrono::seconds(10);
constexpr auto write_timeout = std::chrono::seconds(10);
// Admin connections at once: a browser, a scraper and probes need a handful.
constexpr std::size_t max_sessions = 64;

double unix_now() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

// "127.0.0.1:2019" -> "127.0.0.1", "[::1]:2019" -> "::1", "localhost" -> "localhost".
std::string_view host_name(std::string_view host) {
    if (host.starts_with('[')) {
        const std::size_t close = host.find(']');
        return close == std::string_view::npos ? host : host.substr(1, close - 1);
    }
    return host.substr(0, host.rfind(':'));
}

// A Host a browser sends only when it really talks to a loopback or literal address: an IP
// literal or "localhost". A DNS name pointed at this machine (DNS rebinding) is not.
bool is_literal_host(std::string_view host) {
    const std::string_view name = host_name(host);
    if (beast::iequals(name, "localhost")) {
        return true;
    }
    boost::system::error_code ec;
    net::ip::make_address(std::string(name), ec);
    return !ec;
}

admin_response text(int status, std::string body) {
    return {status, "text/plain; charset=utf-8", std::move(body), {}};
}

admin_response method_not_allowed(std::string_view allow) {
    admin_response response = text(405, "method not allowed\n");
    response.headers.emplace_back("Allow", std::string(allow));
    return response;
}

}  // namespace

// One admin connection: read a request, answer it, and again while the client keeps the
// connection alive. Every member runs on the connection's strand.
class admin_session : public std::enable_shared_from_this<admin_session> {
  public:
    admin_session(tcp::socket&& socket, std::shared_ptr<admin_server> server)
        : stream_(std::move(socket)), server_(std::move(server)) {}

    ~admin_session() { server_->sessions_.fetch_sub(1, std::memory_order_relaxed); }

    void start() {
        net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->do_read(); });
    }

  private:
    void do_read() {
        parser_.emplace();
        parser_->header_limit(header_limit);
        parser_->body_limit(body_limit);
        stream_.expires_after(read_timeout);
        http::async_read(stream_, buffer_, *parser_,
                         beast::bind_front_handler(&admin_session::on_read, shared_from_this()));
    }

    void on_read(beast::error_code ec, std::size_t) {
        if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
            ec == net::error::eof || ec == net::error::connection_reset ||
            ec == net::error::operation_aborted) {
            do_close();
            return;
        }
        if (ec == http::error::header_limit || ec == http::error::body_limit ||
            ec == http::error::buffer_overflow) {
            write(text(413, "request too large\n"), false, false);
            return;
        }
        if (ec) {
            write(text(400, "malformed request: " + ec.message() + "\n"), false, false);
            return;
        }
        const auto& req = parser_->get();
        const std::string_view target = req.target();
        if (req.method() == http::verb::post && target.substr(0, target.find('?')) == "/load") {
            admin_response checked = server_->handle(
                req.method_string(), target, req[http::field::host], req[http::field::origin]);
            if (checked.status == 403) {
                write(std::move(checked), req.keep_alive(), false);
                return;
            }
            // Answered when the reload is over, from the reload thread: the answer comes back
            // to this connection's strand.
            server_->load(req[http::field::content_type], req[config_file_header], req.body(),
                          [self = shared_from_this(),
                           keep_alive = req.keep_alive()](admin_response response) {
                              net::post(
                                  self->stream_.get_executor(),
                                  [self, keep_alive, response = std::move(response)]() mutable {
                                      self->write(std::move(response), keep_alive, false);
                                  });
                          });
            return;
        }
        if (const std::optional<std::size_t> thread =
                backtrace_thread(target.substr(0, target.find('?')))) {
            answer_backtrace(*thread, req.method(), req.keep_alive());
            return;
        }
        admin_response response;
        try {
            response = server_->handle(req.method_string(), req.target(), req[http::field::host],
                                       req[http::field::origin]);
        } catch (const std::exception& e) {
            spdlog::get("server")->error("admin: {} {} failed: {}",
                                         std::string_view(req.method_string()),
                                         std::string_view(req.target()), e.what());
            response = text(500, "internal error\n");
        }
        write(std::move(response), req.keep_alive(), req.method() == http::verb::head);
    }

    // GET /threads/N/backtrace: the slot thread answers when it reaches PHP code, a timer on
    // this strand when it does not within backtrace_timeout; whichever comes first is sent.
    void answer_backtrace(std::size_t thread, http::verb method, bool keep_alive) {
        if (method != http::verb::get && method != http::verb::head) {
            write(method_not_allowed("GET, HEAD"), keep_alive, false);
            return;
        }
        const bool is_head = method == http::verb::head;
        auto answered = std::make_shared<std::atomic<bool>>(false);
        auto timer = std::make_shared<net::steady_timer>(stream_.get_executor(),
                                                         admin_server::backtrace_timeout);
        // Any thread, at most once in effect; the timer is cancelled on the strand.
        auto reply = [self = shared_from_this(), answered, timer, keep_alive,
                      is_head](admin_response response) {
            if (answered->exchange(true)) {
                return;
            }
            net::post(self->stream_.get_executor(),
                      [self, timer, keep_alive, is_head, response = std::move(response)]() mutable {
                          timer->cancel();
                          self->write(std::move(response), keep_alive, is_head);
                      });
        };
        timer->async_wait([reply, thread](beast::error_code ec) {
            if (!ec) {
                reply(text(504, "thread " + std::to_string(thread) +
                                    " did not reach PHP code within " +
                                    std::to_string(admin_server::backtrace_timeout.count()) +
                                    " s: it is blocked in C code (a database or network call, "
                                    "a lock); ask again, or read its request in /threads\n"));
            }
        });
        server_->backtrace(thread, reply);
    }

    void write(admin_response answer, bool keep_alive, bool is_head) {
        auto res = std::make_shared<http::response<http::string_body>>();
        res->version(11);
        res->result(static_cast<unsigned>(answer.status));
        res->set(http::field::server, "Spindle");
        res->set(http::field::content_type, answer.content_type);
        res->set(http::field::cache_control, "no-store");
        res->set("X-Content-Type-Options", "nosniff");
        for (const auto& [name, value] : answer.headers) {
            res->set(name, value);
        }
        res->keep_alive(keep_alive);
        res->body() = std::move(answer.body);
        res->prepare_payload();
        if (is_head) {
            // The length of what GET would send, without the body.
            res->body().clear();
        }
        stream_.expires_after(write_timeout);
        http::async_write(
            stream_, *res,
            [self = shared_from_this(), res, keep_alive](beast::error_code ec, std::size_t) {
                self->on_write(ec, keep_alive);
            });
    }

    void on_write(beast::error_code ec, bool keep_alive) {
        if (ec || !keep_alive) {
            do_close();
            return;
        }
        do_read();
    }

    void do_close() {
        beast::error_code ec;
        stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
        stream_.close();
    }

    beast::tcp_stream stream_;
    std::shared_ptr<admin_server> server_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
};

admin_server::admin_server(net::io_context& ioc, const tcp::endpoint& endpoint,
                           http_context& context, actions act)
    : ioc_(ioc), acceptor_(net::make_strand(ioc)), context_(context), actions_(std::move(act)) {
    open_acceptor(acceptor_, endpoint, "cannot listen for the admin endpoint on ");
}

admin_server::admin_server(net::io_context& ioc, int fd, http_context& context, actions act)
    : ioc_(ioc), acceptor_(net::make_strand(ioc)), context_(context), actions_(std::move(act)) {
    // A Unix socket in a TCP acceptor, as listener.cpp does: the sessions stay one code path.
    boost::system::error_code ec;
    acceptor_.assign(tcp::v4(), fd, ec);
    if (ec) {
        throw std::system_error(ec, "cannot accept on the private admin socket");
    }
}

tcp::endpoint admin_server::local_endpoint() const {
    return acceptor_.local_endpoint();
}

void admin_server::run() {
    net::dispatch(acceptor_.get_executor(), [self = shared_from_this()] { self->do_accept(); });
}

void admin_server::stop() {
    net::post(acceptor_.get_executor(), [self = shared_from_this()] {
        boost::system::error_code ec;
        self->acceptor_.close(ec);
    });
}

void admin_server::do_accept() {
    if (!acceptor_.is_open()) {
        return;
    }
    acceptor_.async_accept(net::make_strand(ioc_),
                           beast::bind_front_handler(&admin_server::on_accept, shared_from_this()));
}

void admin_server::on_accept(beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted) {
        return;
    }
    if (ec) {
        spdlog::get("server")->warn(
            "admin: accept failed: {}; raise the open-file limit "
            "(ulimit -n) if this repeats",
            ec.message());
    } else if (sessions_.load(std::memory_order_relaxed) >= max_sessions) {
        // Enough clients already: this one is closed at once rather than left waiting.
        boost::system::error_code ignored;
        socket.close(ignored);
    } else {
        sessions_.fetch_add(1, std::memory_order_relaxed);
        std::make_shared<admin_session>(std::move(socket), shared_from_this())->start();
    }
    do_accept();
}

admin_response admin_server::handle(std::string_view method, std::string_view target,
                                    std::string_view host, std::string_view origin) const {
    const std::string_view path = target.substr(0, target.find('?'));
    const bool is_get = method == "GET" || method == "HEAD";
    const bool draining = context_.stopping.load(std::memory_order_relaxed);

    if (path == "/workers/restart" || path == "/tls/reload" || path == "/load") {
        if (method != "POST") {
            return method_not_allowed("POST");
        }
        // A page in a browser may POST here (a form needs no CORS): accept only a client that
        // talks to a literal local address and, if it says where it comes from, is this page.
        if (!is_literal_host(host) ||
            (!origin.empty() && !beast::iequals(origin, "http://" + std::string(host)))) {
            return text(403, "forbidden: POST from another origin or through a host name\n");
        }
        if (path == "/load") {
            // The session hands an allowed POST /load to load() instead.
            return text(500, "internal error\n");
        }
        if (path == "/tls/reload") {
            const std::vector<std::string> errors = actions_.reload_tls();
            nlohmann::json body = {{"reloaded", errors.empty()}, {"errors", errors}};
            return {errors.empty() ? 200 : 500, "application/json", body.dump() + "\n", {}};
        }
        const std::optional<std::vector<std::string>> workers = actions_.restart_workers();
        if (!workers) {
            return text(503, "draining: nothing is restarted while the server shuts down\n");
        }
        nlohmann::json body = {{"restarting", *workers}};
        return {202, "application/json", body.dump() + "\n", {}};
    }
    if (path != "/" && path != "/metrics" && path != "/threads" && path != "/healthz" &&
        path != "/readyz" && path != "/config") {
        return text(404, "not found\n");
    }
    if (!is_get) {
        return method_not_allowed("GET, HEAD");
    }
    if (path == "/healthz") {
        return text(200, "ok\n");
    }
    if (path == "/config") {
        return {200, "application/json", context_.snapshot()->document.dump(2) + "\n", {}};
    }
    if (path == "/readyz") {
        const readiness state = check_readiness(context_.pool, draining);
        if (!state.ready) {
            return text(503, "not ready: " + state.reason + "\n");
        }
        // A reload that failed leaves the previous configuration serving: still ready (a
        // load balancer must not drop a healthy instance), but said here for the operator.
        const std::shared_ptr<const std::string> failed = context_.last_reload_error();
        return text(200, failed ? "ready; the last reload failed, the previous configuration "
                                  "serves: " +
                                      *failed + "\n"
                                : std::string("ready\n"));
    }
    if (path == "/metrics") {
        return {200,
                "text/plain; version=0.0.4; charset=utf-8",
                metrics_text(context_.pool, context_.metrics.read(),
                             context_.connections.load(std::memory_order_relaxed),
                             read_process_sample()) +
                    certificate_metrics_text(context_.certificates),
                {}};
    }
    if (path == "/threads") {
        return {200, "application/json", threads_json(context_.pool, draining, unix_now()), {}};
    }
    admin_response page{200, "text/html; charset=utf-8", std::string(status_page_html()), {}};
    page.headers.emplace_back("Content-Security-Policy", std::string(status_page_csp));
    page.headers.emplace_back("X-Frame-Options", "DENY");
    return page;
}

void admin_server::backtrace(std::size_t index, std::function<void(admin_response)> done) const {
    const auto& slots = context_.pool.slots();
    if (index >= slots.size()) {
        done(text(404, "no thread " + std::to_string(index) + " (threads are numbered 0 to " +
                           std::to_string(slots.size() - 1) + ")\n"));
        return;
    }
    worker::slot::running_copy running;
    if (!slots[index]->copy_running(running)) {
        done(text(409, "thread " + std::to_string(index) + " is not running a request\n"));
        return;
    }
    auto on_report = [done, index](std::optional<sapi::backtrace_report> report) {
        if (!report) {
            done(text(409, "thread " + std::to_string(index) +
                               ": its request ended before the backtrace was taken\n"));
            return;
        }
        done({200, "application/json", "{" + sapi::backtrace_fields(*report) + "}\n", {}});
    };
    if (!context_.pool.request_backtrace(index,
                                         {running.id, running.since, std::move(on_report)})) {
        done(text(503, "thread " + std::to_string(index) +
                           " cannot take a backtrace now (too many asked for); ask again\n"));
    }
}

void admin_server::load(std::string_view content_type, std::string_view file,
                        const std::string& body, std::function<void(admin_response)> done) const {
    // Caddy's names: text/caddyfile (or no type) for a Caddyfile, application/json for JSON.
    const std::string_view type = content_type.substr(0, content_type.find(';'));
    const std::string adapter = beast::iequals(type, "application/json") ? "json" : "caddyfile";
    const std::string name = file.empty() ? std::string("POST /load") : std::string(file);
    config::server_config next;
    nlohmann::json document;
    try {
        config::loaded_config loaded = config::load_config_text(body, name, adapter);
        next = config::config_from_json(loaded.document, name, loaded.sources);
        document = std::move(loaded.document);
    } catch (const std::exception& e) {
        nlohmann::json answer = {{"applied", false}, {"error", e.what()}};
        done({400, "application/json", answer.dump() + "\n", {}});
        return;
    }
    actions_.load(std::move(next), std::move(document),
                  [done = std::move(done)](const reload_result& result) {
                      // A configuration refused by its checks (a root that does not exist) is
                      // the client's error; one that cannot be applied is not.
                      done({result.applied ? 200 : (result.invalid ? 400 : 500),
                            "application/json",
                            result.to_json(),
                            {}});
                  });
}

}  // namespace spindle::server
