#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>

#include "server/http1/io_threads.hpp"
#include "server/http1/unix_socket.hpp"
#include "server/routing/http_context.hpp"

namespace spindle::server {

class tls_certificate_store;

/// The endpoint a TCP address binds: an IP literal or localhost (127.0.0.1); an empty host is
/// every IPv4 address. Throws std::system_error for a host name.
boost::asio::ip::tcp::endpoint resolve_endpoint(const config::listen_address& address);

/// Opens `acceptor` on `endpoint` (SO_REUSEADDR, bind, listen). Throws std::system_error whose
/// text is `what` followed by the address, so start-up fails before anything is served.
void open_acceptor(boost::asio::ip::tcp::acceptor& acceptor,
                   const boost::asio::ip::tcp::endpoint& endpoint, const std::string& what);

/// Accepts connections on one address and starts an http_session for each, on the I/O threads
/// in turn.
/// Stops accepting while the connection limit is reached (the kernel backlog holds the rest).
/// Runs on the I/O threads; constructed and stopped by the control thread.
class listener : public std::enable_shared_from_this<listener> {
  public:
    /// Binds and listens at once, so a port in use fails start-up (or a reload) before
    /// anything is served. Throws std::system_error naming the address. `address` is the
    /// configured address (its sites are looked up in the current snapshot per request);
    /// `tls` its certificates when it speaks HTTPS, else null.
    listener(io_threads& io, const boost::asio::ip::tcp::endpoint& endpoint, http_context& context,
             config::listen_address address, std::shared_ptr<tls_certificate_store> tls);

    /// The same on a Unix domain socket (address.unix_path, open_unix_listener() in
    /// unix_socket.hpp), plain HTTP; stop() removes the socket file.
    listener(io_threads& io, http_context& context, config::listen_address address);

    /// Accepts on `fd`, a listening socket the supervisor opened for `address` and this
    /// server process inherited (server_process_role.hpp); `protocol` is the address family
    /// (v4 for a Unix socket, whose file stays the supervisor's). Throws std::system_error.
    listener(io_threads& io, int fd, boost::asio::ip::tcp protocol, http_context& context,
             config::listen_address address, std::shared_ptr<tls_certificate_store> tls);

    /// The configured address it serves.
    const config::listen_address& address() const noexcept { return address_; }

    ~listener();
    listener(const listener&) = delete;
    listener& operator=(const listener&) = delete;

    /// Speaks HTTPS: its certificates, for reloading; else null.
    const std::shared_ptr<tls_certificate_store>& tls() const noexcept { return tls_; }

    /// The bound address (port 0 resolved); TCP only.
    boost::asio::ip::tcp::endpoint local_endpoint() const;

    /// What it listens on, for the log: "http://127.0.0.1:8080", "unix//run/spindle.sock".
    std::string describe() const;

    /// Starts accepting.
    void run();

    /// Closes the socket; no new connections (any thread, posted to the listener's strand).
    void stop();

  private:
    void do_accept();
    void on_accept(boost::beast::error_code ec, boost::asio::ip::tcp::socket socket);

    io_threads& io_;
    boost::asio::ip::tcp::acceptor acceptor_;
    boost::asio::steady_timer pause_timer_;
    http_context& context_;
    const config::listen_address address_;
    const std::shared_ptr<tls_certificate_store> tls_;
    std::optional<unix_listening_socket> unix_socket_;  ///< a Unix socket listener's file
};

}  // namespace spindle::server
