#pragma once

#include <memory>
#include <string>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>

#include "server/http_context.hpp"
#include "server/io_threads.hpp"

namespace spindle::server {

class tls_certificate_store;

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
    /// Binds and listens at once, so a port in use fails start-up before anything is served.
    /// Throws std::system_error naming the address. `sites` are the sites listening here;
    /// `tls` their certificates when the address speaks HTTPS, else null.
    listener(io_threads& io, const boost::asio::ip::tcp::endpoint& endpoint, http_context& context,
             std::vector<const site_context*> sites, std::shared_ptr<tls_certificate_store> tls);

    /// Speaks HTTPS: its certificates, for reloading; else null.
    const std::shared_ptr<tls_certificate_store>& tls() const noexcept { return tls_; }

    /// The bound address (port 0 resolved).
    boost::asio::ip::tcp::endpoint local_endpoint() const;

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
    /// Outlives every session it starts: the server destroys listeners after the I/O threads.
    const std::vector<const site_context*> sites_;
    const std::shared_ptr<tls_certificate_store> tls_;
};

}  // namespace spindle::server
