#include "acme/https_client.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <openssl/ssl.h>

#include <cctype>
#include <stdexcept>

namespace spindle::acme {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

struct url_parts {
    std::string host;
    std::string port = "443";
    std::string target = "/";
};

url_parts split_url(const std::string& url) {
    constexpr std::string_view scheme = "https://";
    if (!url.starts_with(scheme)) {
        throw std::runtime_error("\"" + url + "\" is not an https:// URL");
    }
    url_parts parts;
    const std::string rest = url.substr(scheme.size());
    const std::size_t slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    if (slash != std::string::npos) {
        parts.target = rest.substr(slash);
    }
    const std::size_t colon = authority.rfind(':');
    if (colon != std::string::npos && authority.find(']', colon) == std::string::npos) {
        parts.port = authority.substr(colon + 1);
        authority.resize(colon);
    }
    if (authority.starts_with('[') && authority.ends_with(']')) {
        authority = authority.substr(1, authority.size() - 2);
    }
    parts.host = authority;
    return parts;
}

net::awaitable<https_response> exchange(net::ssl::context& tls, const https_request& request,
                                        std::chrono::seconds timeout) {
    const url_parts url = split_url(request.url);
    auto executor = co_await net::this_coro::executor;
    net::ip::tcp::resolver resolver(executor);
    beast::ssl_stream<beast::tcp_stream> stream(executor, tls);
    beast::get_lowest_layer(stream).expires_after(timeout);
    const auto endpoints = co_await resolver.async_resolve(url.host, url.port, net::use_awaitable);
    co_await beast::get_lowest_layer(stream).async_connect(endpoints, net::use_awaitable);
    // SNI, and the name the CA's certificate must carry.
    if (SSL_set_tlsext_host_name(stream.native_handle(), url.host.c_str()) != 1) {
        throw std::runtime_error("cannot set the server name " + url.host);
    }
    stream.set_verify_callback(net::ssl::host_name_verification(url.host));
    co_await stream.async_handshake(net::ssl::stream_base::client, net::use_awaitable);

    http::request<http::string_body> req;
    req.method(http::string_to_verb(request.method));
    req.target(url.target);
    req.version(11);
    req.set(http::field::host, url.port == "443" ? url.host : url.host + ":" + url.port);
    req.set(http::field::user_agent, "Spindle-ACME/1");
    req.set(http::field::connection, "close");
    if (!request.accept.empty()) {
        req.set(http::field::accept, request.accept);
    }
    if (!request.content_type.empty()) {
        req.set(http::field::content_type, request.content_type);
    }
    req.body() = request.body;
    req.prepare_payload();
    beast::get_lowest_layer(stream).expires_after(timeout);
    co_await http::async_write(stream, req, net::use_awaitable);

    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    // A HEAD answer has a Content-Length but no body.
    parser.skip(request.method == "HEAD");
    parser.body_limit(16 * 1024 * 1024);
    co_await http::async_read(stream, buffer, parser, net::use_awaitable);
    https_response out;
    out.status = parser.get().result_int();
    for (const auto& field : parser.get()) {
        std::string name(field.name_string());
        for (char& c : name) {
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        std::string& value = out.headers[name];
        if (name == "link" && !value.empty()) {
            value.append(", ");
            value.append(field.value());
        } else {
            value.assign(field.value());
        }
    }
    out.body = std::move(parser.get().body());
    // The CA closes after `Connection: close`; a missing close_notify is not worth reporting.
    beast::error_code ignored;
    beast::get_lowest_layer(stream).socket().close(ignored);
    co_return out;
}

}  // namespace

std::string https_response::header(const std::string& lower_name) const {
    const auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
}

https_client::https_client(const std::vector<std::string>& trusted_roots,
                           std::chrono::seconds timeout)
    : tls_(std::make_unique<net::ssl::context>(net::ssl::context::tls_client)), timeout_(timeout) {
    tls_->set_default_verify_paths();
    tls_->set_verify_mode(net::ssl::verify_peer);
    for (const std::string& file : trusted_roots) {
        beast::error_code ec;
        tls_->load_verify_file(file, ec);
        if (ec) {
            throw std::runtime_error("cannot read the CA root " + file + ": " + ec.message());
        }
    }
}

https_client::~https_client() = default;

https_response https_client::send(const https_request& request) {
    // A private io_context per request: the ACME thread blocks here, nothing else runs on it.
    net::io_context io;
    auto result = net::co_spawn(io, exchange(*tls_, request, timeout_), net::use_future);
    io.run();
    try {
        return result.get();
    } catch (const boost::system::system_error& e) {
        const std::string why = e.code() == beast::error::timeout
                                    ? "no answer within " + std::to_string(timeout_.count()) + " s"
                                    : e.code().message();
        throw std::runtime_error(request.method + " " + request.url + ": " + why);
    }
}

}  // namespace spindle::acme
