#include "server/process/reload_client.hpp"

#include <chrono>
#include <stdexcept>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

namespace spindle::server {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

admin_answer post_load(const config::listen_address& admin, const std::string& path,
                       const std::string& text, const std::string& adapter, int timeout_seconds) {
    net::io_context ioc;
    beast::tcp_stream stream(ioc);
    std::string host = admin.host.empty() ? "127.0.0.1" : admin.host;
    if (host == "localhost") {
        host = "127.0.0.1";
    }
    if (host.size() > 2 && host.front() == '[') {
        host = host.substr(1, host.size() - 2);
    }
    beast::error_code ec;
    const auto address = net::ip::make_address(host, ec);
    if (ec) {
        throw std::runtime_error("admin address " + host + " is not an IP address");
    }
    stream.expires_after(std::chrono::seconds(timeout_seconds));
    stream.connect(net::ip::tcp::endpoint(address, admin.port), ec);
    if (ec) {
        throw std::runtime_error("cannot reach the admin endpoint at " + config::to_string(admin) +
                                 ": " + ec.message() +
                                 " (is the server running, with admin on that address?)");
    }
    http::request<http::string_body> req{http::verb::post, "/load", 11};
    // A literal host: the admin endpoint refuses POSTs through a host name.
    req.set(http::field::host, address.is_v6() ? "[" + host + "]:" + std::to_string(admin.port)
                                               : host + ":" + std::to_string(admin.port));
    req.set(http::field::content_type, adapter == "json" ? "application/json" : "text/caddyfile");
    req.set(config_file_header, path);
    req.set(http::field::connection, "close");
    req.body() = text;
    req.prepare_payload();
    http::write(stream, req, ec);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    if (!ec) {
        http::read(stream, buffer, res, ec);
    }
    if (ec) {
        throw std::runtime_error("the admin endpoint at " + config::to_string(admin) +
                                 " did not answer: " + ec.message());
    }
    return {static_cast<int>(res.result_int()), res.body()};
}

}  // namespace spindle::server
