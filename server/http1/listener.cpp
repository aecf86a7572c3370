#include "server/http1/listener.hpp"

#include <unistd.h>

#include <boost/asio/strand.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <chrono>
#include <system_error>

#include <spdlog/spdlog.h>

#include "server/http1/http_session.hpp"
#include "server/tls/tls_certificates.hpp"

namespace spindle::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

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

void open_acceptor(tcp::acceptor& acceptor, const tcp::endpoint& endpoint,
                   const std::string& what) {
    boost::system::error_code ec;
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) {
        acceptor.set_option(net::socket_base::reuse_address(true), ec);
    }
    if (!ec) {
        acceptor.bind(endpoint, ec);
    }
    if (!ec) {
        acceptor.listen(net::socket_base::max_listen_connections, ec);
    }
    if (ec) {
        throw std::system_error(
            ec, what + endpoint.address().to_string() + ":" + std::to_string(endpoint.port()));
    }
}

listener::listener(io_threads& io, const tcp::endpoint& endpoint, http_context& context,
                   config::listen_address address, std::shared_ptr<tls_certificate_store> tls)
    : io_(io),
      acceptor_(net::make_strand(io.main())),
      pause_timer_(acceptor_.get_executor()),
      context_(context),
      address_(std::move(address)),
      tls_(std::move(tls)) {
    open_acceptor(acceptor_, endpoint, "cannot listen on ");
}

listener::listener(io_threads& io, http_context& context, config::listen_address address)
    : io_(io),
      acceptor_(net::make_strand(io.main())),
      pause_timer_(acceptor_.get_executor()),
      context_(context),
      address_(std::move(address)) {
    const std::string& unix_path = address_.unix_path;
    // The Unix socket goes into a TCP acceptor: accepting and every stream operation after it
    // are the same calls on any stream socket, so sessions, direct writes from PHP threads and
    // sendfile stay one code path. Only addresses differ; http_session reads the family.
    unix_listening_socket socket = open_unix_listener(unix_path, address_.unix_mode);
    boost::system::error_code ec;
    acceptor_.assign(tcp::v4(), socket.fd, ec);
    if (ec) {
        ::close(socket.fd);
        remove_unix_socket(socket);
        throw std::system_error(ec, "cannot listen on unix/" + unix_path);
    }
    unix_socket_ = std::move(socket);
}

listener::listener(io_threads& io, int fd, tcp protocol, http_context& context,
                   config::listen_address address, std::shared_ptr<tls_certificate_store> tls)
    : io_(io),
      acceptor_(net::make_strand(io.main())),
      pause_timer_(acceptor_.get_executor()),
      context_(context),
      address_(std::move(address)),
      tls_(std::move(tls)) {
    boost::system::error_code ec;
    acceptor_.assign(protocol, fd, ec);
    if (ec) {
        throw std::system_error(
            ec, "cannot accept on the socket inherited for " + config::to_string(address_));
    }
}

listener::~listener() {
    // A server that stopped before it served (a worker that could not boot) leaves no file.
    if (unix_socket_) {
        remove_unix_socket(*unix_socket_);
    }
}

tcp::endpoint listener::local_endpoint() const {
    return acceptor_.local_endpoint();
}

std::string listener::describe() const {
    if (!address_.unix_path.empty()) {
        return "unix/" + address_.unix_path;
    }
    const tcp::endpoint endpoint = acceptor_.local_endpoint();
    const std::string address = endpoint.address().to_string();
    return std::string(tls_ ? "https://" : "http://") +
           (endpoint.address().is_v6() ? "[" + address + "]" : address) + ":" +
           std::to_string(endpoint.port());
}

void listener::run() {
    net::dispatch(acceptor_.get_executor(), [self = shared_from_this()] { self->do_accept(); });
}

void listener::stop() {
    net::post(acceptor_.get_executor(), [self = shared_from_this()] {
        boost::system::error_code ec;
        self->pause_timer_.cancel();
        self->acceptor_.close(ec);
        if (self->unix_socket_) {
            remove_unix_socket(*self->unix_socket_);
        }
    });
}

void listener::do_accept() {
    if (!acceptor_.is_open()) {
        return;
    }
    if (context_.connections.load(std::memory_order_relaxed) >=
        context_.snapshot()->config.limits.max_connections) {
        // At the limit: leave new clients in the kernel backlog and look again shortly.
        pause_timer_.expires_after(std::chrono::milliseconds(20));
        pause_timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
            if (!ec) {
                self->do_accept();
            }
        });
        return;
    }
    // The connection lives on one I/O thread: its handlers never run concurrently.
    acceptor_.async_accept(io_.next_executor(), boost::beast::bind_front_handler(
                                                    &listener::on_accept, shared_from_this()));
}

void listener::on_accept(boost::beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted) {
        return;
    }
    if (ec) {
        // EMFILE and friends: log, back off a little, keep serving the open connections.
        spdlog::get("server")->warn("accept failed: {}; raise the open-file limit (ulimit -n)",
                                    ec.message());
        pause_timer_.expires_after(std::chrono::milliseconds(50));
        pause_timer_.async_wait([self = shared_from_this()](boost::system::error_code e) {
            if (!e) {
                self->do_accept();
            }
        });
        return;
    }
    // A TLS connection keeps the certificates current now, whatever a reload does later.
    std::make_shared<http_session>(std::move(socket), context_, address_,
                                   tls_ ? tls_->current() : nullptr)
        ->start();
    do_accept();
}

}  // namespace spindle::server
