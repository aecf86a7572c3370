#include "server/http1/http_session.hpp"

#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/detect_ssl.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <charconv>
#include <chrono>
#include <cstring>

#include <spdlog/spdlog.h>

#include "server/exchange/php_exchange.hpp"
#include "server/http/access_log.hpp"
#include "server/http/body_store.hpp"
#include "server/http/http1_head.hpp"
#include "server/http/request_headers.hpp"
#include "server/http/spill_file.hpp"
#include "server/http/status_text.hpp"
#include "server/http/x_sendfile.hpp"
#include "server/http2/http2_session.hpp"
#include "server/routing/request_decision.hpp"
#include "server/static/static_file.hpp"
#include "server/static/static_response.hpp"
#include "server/tls/tls_certificates.hpp"
#include "worker/pool.hpp"

namespace spindle::server {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

// Bytes accepted in the read buffer beyond the header limit (pipelined requests, body start).
constexpr std::size_t read_buffer_slack = 16 * 1024;
// Header fields in one request; more -> 431 (browsers send about 20).
constexpr std::size_t max_header_fields = 256;
// A static file over TLS goes in writes of this size (four full TLS records).
constexpr std::size_t tls_file_chunk = 64 * 1024;
// A buffered PHP response is read back from its spill file in chunks of this size: small, as
// each connection reading one holds a chunk, and slow readers are the ones that spill.
constexpr std::size_t spill_chunk = 16 * 1024;

std::shared_ptr<spdlog::logger> log() {
    return spdlog::get("server");
}

void append_number(std::string& out, std::uint64_t n) {
    char digits[24];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
    out.append(digits, end);
}

double now_seconds() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

http_session::http_session(net::ip::tcp::socket&& socket, http_context& context,
                           config::listen_address address,
                           std::shared_ptr<const tls_certificates> tls)
    : stream_(std::move(socket)),
      context_(context),
      tls_(std::move(tls)),
      address_(std::move(address)),
      snapshot_(context.snapshot()),
      buffer_(context.snapshot()->config.limits.max_header_size + read_buffer_slack),
      queue_timer_(stream_.get_executor()),
      idle_timer_(stream_.get_executor()),
      rate_timer_(stream_.get_executor()) {
    context_.connections.fetch_add(1, std::memory_order_relaxed);
    beast::error_code ec;
    auto local = stream_.socket().local_endpoint(ec);
    if (!ec && local.data()->sa_family == AF_UNIX) {
        // A Unix socket (listener.cpp): the client is a proxy on this host. REMOTE_ADDR says
        // so, as Puma and Unicorn say it, so that "trust proxies on 127.0.0.1" settings
        // (Laravel's TrustProxies, Symfony's trusted_proxies) read X-Forwarded-For from it.
        remote_addr_ = local_addr_ = "127.0.0.1";
        local_port_ = 80;
        peer_is_unix_ = true;
    } else {
        if (!ec) {
            local_addr_ = local.address().to_string();
            local_port_ = local.port();
        }
        auto remote = stream_.socket().remote_endpoint(ec);
        if (!ec) {
            remote_addr_ = remote.address().to_string();
            remote_port_ = remote.port();
        }
        stream_.socket().set_option(net::ip::tcp::no_delay(true), ec);
    }
}

http_session::~http_session() {
    if (file_fd_ >= 0) {
        ::close(file_fd_);
    }
    context_.connections.fetch_sub(1, std::memory_order_relaxed);
}

void http_session::start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
        if (self->context_.proxy_protocol) {
            self->do_read_proxy_header();
        } else {
            self->start_protocol();
        }
    });
}

void http_session::start_protocol() {
    if (tls_) {
        do_detect_tls();
    } else {
        do_wait_request();
    }
}

// --- PROXY protocol ----------------------------------------------------------------------

void http_session::do_read_proxy_header() {
    if (!proxy_parser_) {
        proxy_policy_ = context_.proxy_protocol->policy_for(remote_addr_, peer_is_unix_);
        if (proxy_policy_ == proxy_policy::skip) {
            start_protocol();
            return;
        }
        proxy_parser_.emplace();
        // One deadline for the whole header, as HAProxy's and Caddy's `timeout`: a peer that
        // connects and says nothing holds the connection no longer.
        stream_.expires_after(context_.proxy_protocol->timeout);
    }
    // The header is small (107 bytes for v1, 16 + 4096 at most for v2); what comes after it in
    // the same read stays in buffer_ for TLS or HTTP.
    const std::size_t room = std::min<std::size_t>(proxy_header_parser::max_v2_payload + 16,
                                                   buffer_.max_size() - buffer_.size());
    if (room == 0) {
        do_close();
        return;
    }
    stream_.tcp().async_read_some(
        buffer_.prepare(room),
        beast::bind_front_handler(&http_session::on_read_proxy_header, shared_from_this()));
}

void http_session::on_read_proxy_header(beast::error_code ec, std::size_t bytes) {
    if (ec) {
        log()->debug("PROXY header from {}: {}", remote_addr_,
                     ec == beast::error::timeout ? "none within the timeout" : ec.message());
        do_close();
        return;
    }
    const std::size_t before = buffer_.size();
    buffer_.commit(bytes);
    const auto* data = static_cast<const char*>(buffer_.data().data());
    proxy_parser_->feed(std::string_view(data + before, bytes));
    switch (proxy_parser_->state()) {
        case proxy_header_state::done: break;
        case proxy_header_state::not_proxy:
            if (proxy_policy_ == proxy_policy::require) {
                log()->debug("connection from {} sent no PROXY header; closed", remote_addr_);
                do_close();
                return;
            }
            proxy_parser_.reset();
            start_protocol();
            return;
        case proxy_header_state::invalid:
            log()->debug("malformed PROXY header from {}: {}; closed", remote_addr_,
                         proxy_parser_->error());
            do_close();
            return;
        default: do_read_proxy_header(); return;
    }
    if (proxy_policy_ == proxy_policy::reject) {
        log()->debug("PROXY header from {}, which is denied; closed", remote_addr_);
        do_close();
        return;
    }
    const proxy_header& header = proxy_parser_->header();
    if (header.source && proxy_policy_ != proxy_policy::ignore) {
        // From here on the client is the address the proxy names, for trusted_proxies as for
        // REMOTE_ADDR and the access log.
        remote_addr_ = config::format_ip(header.source->address);
        remote_port_ = header.source->port;
        peer_is_unix_ = false;
    }
    buffer_.consume(proxy_parser_->header_size());
    proxy_parser_.reset();
    start_protocol();
}

// --- TLS ---------------------------------------------------------------------------------

void http_session::do_detect_tls() {
    // One deadline from accept to the end of the handshake, as for a header block: a client
    // that connects and stalls (or drips its ClientHello) holds nothing for long.
    stream_.expires_after(limits().read_header_timeout);
    beast::async_detect_ssl(
        stream_.tcp(), buffer_,
        beast::bind_front_handler(&http_session::on_detect_tls, shared_from_this()));
}

void http_session::on_detect_tls(beast::error_code ec, bool is_tls) {
    if (ec) {
        do_close();
        return;
    }
    // A first byte of 0x16 opens a TLS handshake record whatever follows: OpenSSL judges (and
    // the metrics count) a malformed ClientHello, rather than the HTTP parser.
    is_tls = is_tls || (buffer_.size() > 0 &&
                        *static_cast<const unsigned char*>(buffer_.data().data()) == 0x16);
    if (!is_tls) {
        // Plain HTTP on the HTTPS port: read the request to answer it with a redirect to
        // https:// rather than a handshake error the user cannot read.
        plain_on_tls_port_ = true;
        do_wait_request();
        return;
    }
    stream_.start_tls(tls_->default_context());
    // The bytes detect_ssl read are the start of the ClientHello: the handshake takes them.
    stream_.tls().async_handshake(
        net::ssl::stream_base::server, buffer_.data(),
        beast::bind_front_handler(&http_session::on_handshake, shared_from_this()));
}

void http_session::on_handshake(beast::error_code ec, std::size_t used) {
    if (ec) {
        // Scanners, old clients and clients that distrust the certificate fail here all day;
        // a log line each at a level that is on by default would be a flood anyone can cause.
        context_.metrics.record_tls_handshake(false);
        log()->debug("TLS handshake with {}:{} failed: {}", remote_addr_, remote_port_,
                     ec.message());
        do_close();
        return;
    }
    context_.metrics.record_tls_handshake(true);
    buffer_.consume(used);
    SSL* ssl = stream_.tls().native_handle();
    tls_protocol_ = SSL_get_version(ssl);
    tls_cipher_ = SSL_CIPHER_get_name(SSL_get_current_cipher(ssl));
    const unsigned char* alpn = nullptr;
    unsigned int alpn_length = 0;
    SSL_get0_alpn_selected(ssl, &alpn, &alpn_length);
    if (std::string_view(reinterpret_cast<const char*>(alpn), alpn_length) == "h2") {
        start_http2();
        return;
    }
    do_wait_request();
}

void http_session::start_http2() {
    connection_facts facts{address_,    remote_addr_, remote_port_,  peer_is_unix_,
                           local_addr_, local_port_,  tls_protocol_, tls_cipher_};
    std::string received(static_cast<const char*>(buffer_.data().data()), buffer_.size());
    buffer_.consume(buffer_.size());
    // This session keeps the socket (and its TLS state) alive for the HTTP/2 one, and does
    // nothing else from here.
    std::make_shared<http2_session>(shared_from_this(), stream_, context_, std::move(facts),
                                    std::move(received))
        ->start();
}

bool http_session::opens_http2() const {
    // Before its first request only, a plain connection may open with the HTTP/2 preface
    // (RFC 9113 3.3, prior knowledge); "PRI " is no HTTP/1.1 method anyone sends.
    constexpr std::string_view preface = "PRI * HTTP/2.0\r\n";
    const std::string_view received(static_cast<const char*>(buffer_.data().data()),
                                    buffer_.size());
    return request_id_ == 0 && !stream_.is_tls() && !plain_on_tls_port_ && received.size() >= 4 &&
           preface.starts_with(received.substr(0, preface.size())) &&
           snapshot_->config.protocols.h2c;
}

// --- reading -----------------------------------------------------------------------------

void http_session::do_wait_request(bool readable) {
    if (context_.stopping.load(std::memory_order_relaxed)) {
        do_close();
        return;
    }
    if (buffer_.size() > 0) {
        // A pipelined request is already here.
        do_read_header();
        return;
    }
    if (readable && !stream_.is_tls()) {
        // The disconnect watch just saw the socket readable: the next request (or the end) is
        // there to take with one recv(), without arming and cancelling the idle deadline of an
        // asynchronous read.
        const auto space = buffer_.prepare(read_buffer_slack);
        const ssize_t n =
            ::recv(stream_.socket().native_handle(), space.data(), space.size(), MSG_DONTWAIT);
        if (n > 0) {
            buffer_.commit(static_cast<std::size_t>(n));
            do_read_header();
            return;
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            do_close();  // EOF or reset between requests: nothing to answer
            return;
        }
    }
    // Keep-alive idle: wait for the first byte of the next request.
    stream_.expires_after(limits().idle_timeout);
    stream_.async_read_some(
        buffer_.prepare(read_buffer_slack),
        beast::bind_front_handler(&http_session::on_wait_request, shared_from_this()));
}

void http_session::on_wait_request(beast::error_code ec, std::size_t bytes) {
    if (ec) {
        // EOF, reset or idle timeout between requests: nothing to answer.
        do_close();
        return;
    }
    buffer_.commit(bytes);
    do_read_header();
}

void http_session::do_read_header() {
    // A request starts: it uses the configuration current now until it is answered, even if
    // a reload publishes another meanwhile.
    snapshot_ = context_.snapshot();
    if (opens_http2()) {
        start_http2();
        return;
    }
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(limits().max_header_size));
    parser_->body_limit(limits().max_body_size);
    body_.reset();
    // One deadline for the whole header block, so a client dripping bytes cannot hold on.
    stream_.expires_after(limits().read_header_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        beast::bind_front_handler(&http_session::on_read_header, shared_from_this()));
}

void http_session::on_read_header(beast::error_code ec, std::size_t) {
    request_id_ = context_.next_request_id.fetch_add(1, std::memory_order_relaxed);
    request_start_ = now_seconds();
    request_clock_ = std::chrono::steady_clock::now();
    response_status_ = 0;
    response_bytes_ = 0;
    if (ec == http::error::end_of_stream || ec == net::error::eof || ec == beast::error::timeout ||
        ec == net::error::connection_reset || ec == net::error::operation_aborted ||
        ec == net::ssl::error::stream_truncated) {
        do_close();
        return;
    }
    keep_alive_ = false;
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
        // The parser sets the target once the whole request line is in.
        if (parser_->get().target().empty()) {
            respond(414, "request target too long", false);
            return;
        }
        respond(431, "request header block too large", false);
        return;
    }
    // Beast's parser accepts HTTP/1.0 and HTTP/1.1 only and refuses any other version as it
    // refuses a garbled one.
    if (ec == http::error::bad_version && names_http_version()) {
        respond(505, "only HTTP/1.0 and HTTP/1.1 are supported", false);
        return;
    }
    if (ec == http::error::body_limit) {
        respond(413, "request body too large", false);
        return;
    }
    if (ec) {
        respond(400, std::string("malformed request: ") + ec.message(), false);
        return;
    }
    if (!snapshot_->config.protocols.h1) {
        respond(505, "this server speaks HTTP/2 only (servers { protocols })", false);
        return;
    }
    if (!validate_header()) {
        return;
    }
    // In flight from its header on: a body still arriving when the stop begins is waited for.
    start_in_flight();
    const auto& req = parser_->get();
    body_ = std::make_unique<body_store>(limits().body_memory_size);

    auto expect = req[http::field::expect];
    if (!expect.empty()) {
        if (!beast::iequals(expect, "100-continue")) {
            respond(417, "only Expect: 100-continue is supported", false);
            return;
        }
        if (req.version() >= 11 && !parser_->is_done()) {
            stream_.expires_after(limits().write_timeout);
            // Built once by the head builder, as every head is; static: it outlives the write.
            static const std::string continue_line = http1_head(100).finish();
            net::async_write(
                stream_, net::buffer(continue_line),
                beast::bind_front_handler(&http_session::on_continue_sent, shared_from_this()));
            return;
        }
    }
    do_read_body();
}

void http_session::on_continue_sent(beast::error_code ec, std::size_t) {
    if (ec) {
        do_close();
        return;
    }
    do_read_body();
}

bool http_session::names_http_version() const {
    // "HTTP/d.d" at the end of the request line: a version, only not 1.0 or 1.1 (the parser
    // refuses them all alike), which earns 505 rather than 400.
    const auto data = buffer_.cdata();
    std::string_view line(static_cast<const char*>(data.data()), data.size());
    line = line.substr(0, line.find('\n'));
    if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
    }
    constexpr std::string_view prefix = " HTTP/";
    if (line.size() < prefix.size() + 3) {
        return false;
    }
    const std::string_view version = line.substr(line.size() - prefix.size() - 3);
    auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
    return version.substr(0, prefix.size()) == prefix && is_digit(version[prefix.size()]) &&
           version[prefix.size() + 1] == '.' && is_digit(version[prefix.size() + 2]);
}

bool http_session::validate_header() {
    auto& req = parser_->get();
    keep_alive_ = req.keep_alive();

    // Request-target: origin form, or absolute form ("http://host/path") from proxies.
    std::string_view target = req.target();
    if (target.find('\0') != std::string_view::npos) {
        respond(400, "NUL byte in request target", false);
        return false;
    }
    if (target.starts_with("http://") || target.starts_with("https://")) {
        auto authority = target.find("//") + 2;
        auto path = target.find('/', authority);
        target = path == std::string_view::npos ? std::string_view("/") : target.substr(path);
    }
    if (target == "*" && req.method() == http::verb::options) {
        respond(204, "", keep_alive_, "Allow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\n");
        return false;
    }
    if (!target.starts_with('/')) {
        respond(400, "request target must be an absolute path", false);
        return false;
    }
    auto question = target.find('?');
    target_path_.assign(target.substr(0, question));
    target_query_.assign(question == std::string_view::npos ? std::string_view()
                                                            : target.substr(question + 1));

    // Exactly one valid Host in HTTP/1.1 (RFC 9112 3.2).
    std::size_t host_count = 0;
    for (auto it = req.find(http::field::host); it != req.end() && it->name() == http::field::host;
         ++it) {
        ++host_count;
    }
    if (req.version() == 11 && host_count != 1) {
        respond(400, host_count == 0 ? "missing Host header" : "more than one Host header", false);
        return false;
    }
    if (host_count == 1 && !is_valid_host(req[http::field::host])) {
        respond(400, "invalid Host header", false);
        return false;
    }

    // The field count is capped like Apache's LimitRequestFields, so a header block of
    // thousands of tiny fields cannot turn into thousands of $_SERVER entries per request.
    if (static_cast<std::size_t>(std::distance(req.begin(), req.end())) > max_header_fields) {
        respond(431, "too many header fields", false);
        return false;
    }

    // A Transfer-Encoding other than chunked alone leaves the body length unknown or the body
    // still encoded: reject rather than guess (request smuggling). Beast already rejects
    // Content-Length with chunked.
    if (req.find(http::field::transfer_encoding) != req.end() && !is_chunked_only(req)) {
        respond(501, "unsupported Transfer-Encoding", false);
        return false;
    }
    if (auto length = parser_->content_length(); length && *length > limits().max_body_size) {
        respond(413, "request body too large", false);
        return false;
    }
    return true;
}

void http_session::do_read_body() {
    if (parser_->is_done()) {
        handle_request();
        return;
    }
    auto& body = parser_->get().body();
    body.data = body_chunk_.data();
    body.size = body_chunk_.size();
    // Per read, like nginx's client_body_timeout: a large upload on a slow link is fine, a
    // stalled one is dropped; either way no PHP thread waits for it.
    stream_.expires_after(limits().read_body_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&http_session::on_read_body, shared_from_this()));
}

void http_session::on_read_body(beast::error_code ec, std::size_t) {
    if (ec == http::error::need_buffer) {
        ec = {};
    }
    if (ec == http::error::body_limit) {
        respond(413, "request body too large", false);
        return;
    }
    if (ec == beast::error::timeout || ec == http::error::end_of_stream ||
        ec == http::error::partial_message || ec == net::error::eof ||
        ec == net::error::connection_reset || ec == net::error::operation_aborted ||
        ec == net::ssl::error::stream_truncated) {
        do_close();
        return;
    }
    if (ec) {
        respond(400, std::string("malformed request body: ") + ec.message(), false);
        return;
    }
    std::size_t received = body_chunk_.size() - parser_->get().body().size;
    if (received > 0) {
        if (auto error = body_->append(body_chunk_.data(), received)) {
            log()->error("[req {}] cannot store request body: {}; check free space in TMPDIR",
                         request_id_, error.message());
            respond(500, "cannot store the request body", false);
            return;
        }
    }
    if (parser_->is_done()) {
        handle_request();
    } else {
        do_read_body();
    }
}

// --- answering ---------------------------------------------------------------------------

void http_session::read_forwarding_headers() {
    forwarded_ = {};
    if (!context_.forwarding.is_enabled() ||
        !is_trusted_peer(context_.forwarding, remote_addr_, peer_is_unix_)) {
        return;
    }
    std::vector<field_view> fields;
    for (const auto& field : parser_->get()) {
        fields.push_back({field.name_string(), field.value()});
    }
    forwarded_ = read_forwarded(context_.forwarding, fields);
}

void http_session::handle_request() {
    read_forwarding_headers();
    const std::string_view host = parser_->get()[http::field::host];
    if (plain_on_tls_port_) {
        // The connection cannot turn into TLS: answer, then close.
        if (host.empty()) {
            respond(400, "this port speaks HTTPS; use https://", false);
        } else {
            redirect_to_https(local_port_, false);
        }
        return;
    }
    request_decision d = decide_request(*snapshot_, address_, host, target_path_, target_query_,
                                        stream_.is_tls(), context_.acme_challenges);
    site_ = d.site;
    router_ = d.router;
    switch (d.what) {
        case request_decision::action::answer:
            respond(d.status, d.reason, keep_alive_ && !d.must_close);
            return;
        case request_decision::action::fixed: respond_fixed(d.fixed); return;
        case request_decision::action::redirect_https:
            redirect_to_https(d.https_port, keep_alive_);
            return;
        case request_decision::action::redirect: {
            std::string location = "Location: " + d.r.location + "\r\n";
            respond(308, "", keep_alive_, location);
            return;
        }
        case request_decision::action::static_file: serve_static(d.r); return;
        case request_decision::action::php: dispatch_php(d.r); return;
    }
}

void http_session::redirect_to_https(std::uint16_t port, bool keep_alive) {
    // The Host the client sent (already checked by validate_header), its port replaced.
    std::string location = "Location: https://";
    location.append(host_without_port(parser_->get()[http::field::host]));
    if (port != 443) {
        location.push_back(':');
        append_number(location, port);
    }
    location.append(target_path_);
    if (!target_query_.empty()) {
        location.append("?").append(target_query_);
    }
    location.append("\r\n");
    respond(308, "", keep_alive, location);
}

void http_session::respond_fixed(const config::respond_rule& rule) {
    const bool has_body = status_has_body(rule.status);
    http1_head head(rule.status);
    head.date().server();
    if (has_body) {
        if (!rule.body.empty()) {
            head.field("Content-Type", "text/plain; charset=utf-8");
        }
        head.content_length(rule.body.size());
    }
    const bool keep_alive = keep_alive_ && parser_->is_done();
    head.connection(keep_alive, static_cast<int>(parser_->get().version()));
    // No site for an ACME challenge answer: no header rules.
    std::string bytes = head.finish(site_ != nullptr ? &site_->headers : nullptr);
    if (has_body && parser_->get().method() != http::verb::head) {
        bytes.append(rule.body);
    }
    response_status_ = head.status();
    outgoing item;
    item.bytes = std::move(bytes);
    item.last = true;
    item.keep_alive = keep_alive;
    queue(std::move(item));
}

void http_session::serve_static(const route& r) {
    const auto& req = parser_->get();
    if (req.method() != http::verb::get && req.method() != http::verb::head) {
        respond(405, "static files answer GET and HEAD only", keep_alive_, "Allow: GET, HEAD\r\n");
        return;
    }
    int fd = ::open(r.file.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0) {
            ::close(fd);
        }
        respond(404, "", keep_alive_);
        return;
    }
    serve_file(fd, st, r.file, {}, {});
}

void http_session::serve_handoff(const file_handoff& handoff) {
    const handoff_file file = open_handoff_file(*site_->x_sendfile, handoff);
    if (file.status != 0) {
        // The app named a file it may not send: its author has to fix the path or the
        // x_sendfile directories, so say which.
        log()->warn(
            "[req {}] {} refused ({}): {}; check the path the script sets or the site's "
            "x_sendfile directories",
            request_id_, handoff.is_accel_redirect ? "X-Accel-Redirect" : "X-Sendfile", file.status,
            file.reason);
        respond(file.status, "", keep_alive_);
        return;
    }
    struct stat st {};
    ::fstat(file.fd, &st);  // succeeded in open_handoff_file
    serve_file(file.fd, st, file.name, handoff.content_type, handoff.headers);
}

void http_session::serve_file(int fd, const struct stat& st, const std::string& name,
                              std::string_view content_type, std::string_view extra_headers) {
    const auto& req = parser_->get();
    static_request request;
    request.is_head = req.method() == http::verb::head;
    request.is_safe = request.is_head || req.method() == http::verb::get;
    request.if_none_match = req[http::field::if_none_match];
    request.if_modified_since = req[http::field::if_modified_since];
    request.range = req[http::field::range];
    request.if_range = req[http::field::if_range];
    for (auto it = req.find(http::field::accept_encoding);
         it != req.end() && it->name() == http::field::accept_encoding; ++it) {
        request.accept_encoding.append(request.accept_encoding.empty() ? "" : ", ")
            .append(it->value());
    }
    const static_response plan = plan_static_response(
        fd, st, name, content_type, request, site_->encode ? &*site_->encode : nullptr,
        context_.compressed_files, parse_field_lines(extra_headers));
    if (plan.status == 304 || plan.status == 416) {
        ::close(fd);
        std::string lines;
        for (const head_field& f : plan.fields) {
            lines.append(f.name).append(": ").append(f.value).append("\r\n");
        }
        respond(plan.status, plan.reason, keep_alive_, lines);
        return;
    }
    http1_head builder(plan.status);
    builder.date().server();
    builder.content_length(plan.length);
    for (const head_field& f : plan.fields) {
        builder.field(f.name, f.value);
    }
    builder.connection(keep_alive_, static_cast<int>(req.version()));
    std::string head = builder.finish(&site_->headers);

    response_status_ = builder.status();
    outgoing item;
    item.keep_alive = keep_alive_;
    if (request.is_head || plan.range.length == 0 || plan.compressed) {
        ::close(fd);
        if (plan.compressed && !request.is_head) {
            head.append(*plan.compressed);
        }
        item.bytes = std::move(head);
        item.last = true;
        queue(std::move(item));
        return;
    }
    file_fd_ = fd;
    file_offset_ = plan.range.first;
    file_remaining_ = plan.range.length;
    item.bytes = std::move(head);
    queue(std::move(item));
}

void http_session::pump_file() {
    if (stream_.is_tls()) {
        pump_file_tls();
        return;
    }
    // sendfile(2) straight from the page cache: no copy through user space and one system
    // call per socket-buffer's worth instead of a read and a write per chunk.
    beast::error_code ec;
    stream_.socket().native_non_blocking(true, ec);
    while (!ec && file_remaining_ > 0) {
        auto offset = static_cast<off_t>(file_offset_);
        const ssize_t n =
            ::sendfile(stream_.socket().native_handle(), file_fd_, &offset,
                       static_cast<std::size_t>(std::min<std::uint64_t>(file_remaining_, 1 << 30)));
        if (n > 0) {
            file_offset_ += static_cast<std::uint64_t>(n);
            file_remaining_ -= static_cast<std::uint64_t>(n);
            response_bytes_ += static_cast<std::uint64_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            // The socket buffer is full: wait until the client reads, within the write
            // timeout (tcp_stream's own timer does not cover a bare wait).
            queue_timer_.expires_after(limits().write_timeout);
            queue_timer_.async_wait([self = shared_from_this()](beast::error_code timer_ec) {
                if (!timer_ec) {
                    beast::error_code ignored;
                    self->stream_.socket().cancel(ignored);
                }
            });
            stream_.socket().async_wait(net::ip::tcp::socket::wait_write,
                                        [self = shared_from_this()](beast::error_code e) {
                                            self->queue_timer_.cancel();
                                            if (e) {
                                                self->log_access("aborted");
                                                ::close(self->file_fd_);
                                                self->file_fd_ = -1;
                                                self->do_close();
                                                return;
                                            }
                                            self->pump_file();
                                        });
            return;
        }
        // n == 0: the file shrank under us; or a socket error. The promised length cannot be
        // kept either way.
        if (n == 0) {
            log()->warn("[req {}] static file shrank after the head was sent; closing",
                        request_id_);
        }
        ::close(file_fd_);
        file_fd_ = -1;
        do_close();
        return;
    }
    ::close(file_fd_);
    file_fd_ = -1;
    if (ec) {
        do_close();
        return;
    }
    finish_response(keep_alive_);
}

void http_session::pump_file_tls() {
    if (file_remaining_ == 0) {
        ::close(file_fd_);
        file_fd_ = -1;
        finish_response(keep_alive_);
        return;
    }
    file_chunk_.resize(tls_file_chunk);
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(file_remaining_, tls_file_chunk));
    ssize_t n = 0;
    do {
        n = ::pread(file_fd_, file_chunk_.data(), want, static_cast<off_t>(file_offset_));
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
        // The promised length cannot be kept: the file shrank, or reading it failed.
        log()->warn(
            "[req {}] static file shrank or became unreadable after the head was sent; "
            "closing",
            request_id_);
        ::close(file_fd_);
        file_fd_ = -1;
        do_close();
        return;
    }
    file_offset_ += static_cast<std::uint64_t>(n);
    file_remaining_ -= static_cast<std::uint64_t>(n);
    stream_.expires_after(limits().write_timeout);
    net::async_write(stream_, net::buffer(file_chunk_.data(), static_cast<std::size_t>(n)),
                     [self = shared_from_this()](beast::error_code ec, std::size_t bytes) {
                         self->response_bytes_ += bytes;
                         if (ec) {
                             self->log_access("aborted");
                             ::close(self->file_fd_);
                             self->file_fd_ = -1;
                             self->do_close();
                             return;
                         }
                         self->pump_file_tls();
                     });
}

void http_session::dispatch_php(route& r) {
    auto& req = parser_->get();
    bool is_head = req.method() == http::verb::head;
    auto exchange = std::make_shared<php_exchange>(
        shared_from_this(), context_, snapshot_, is_head, keep_alive_, site_->headers,
        site_->encode ? &*site_->encode : nullptr,
        site_->x_sendfile ? &*site_->x_sendfile : nullptr);
    sapi::request& out = exchange->request;
    out.id = request_id_;
    out.method.assign(req.method_string());
    out.uri.assign(target_path_);
    if (!target_query_.empty()) {
        out.uri.append("?").append(target_query_);
    }
    out.query = target_query_;
    out.http_version = static_cast<int>(req.version());
    out.headers.reserve(16);
    copy_forwardable_headers(req, out.headers);
    if (site_->x_sendfile) {
        set_x_sendfile_request_headers(*site_->x_sendfile, out.headers);
    }
    out.remote_addr = client_addr();
    out.remote_port = client_port();
    out.server_addr = local_addr_;
    // A trusted proxy's X-Forwarded-Proto/-Port/-Host say what the client used; the TLS
    // details stay those of this connection (empty behind a proxy that ended TLS).
    out.is_https = forwarded_.is_https.value_or(stream_.is_tls());
    out.tls_protocol = tls_protocol_;
    out.tls_cipher = tls_cipher_;
    std::string_view host = req[http::field::host];
    if (forwarded_.host) {
        host = *forwarded_.host;
        for (sapi::header& h : out.headers) {
            if (beast::iequals(h.name, "host")) {
                h.value = host;
            }
        }
    }
    out.server_port = forwarded_.server_port.value_or(server_port_of(host, out.is_https));
    out.server_name.assign(host.empty() ? std::string_view(local_addr_) : host_without_port(host));
    out.document_root = router_->document_root.empty() ? router_->root : router_->document_root;
    out.env_index = site_->env_index;
    out.script_filename = std::move(r.file);
    out.script_name = std::move(r.script_name);
    out.path_info = std::move(r.path_info);
    out.content_type.assign(req[http::field::content_type]);
    out.content_length = body_->size();
    out.start_time = request_start_;
    // The body moves into the exchange: the PHP thread reads it from there.
    exchange->body = std::move(body_);
    out.body = exchange->body.get();
    out.sink = exchange.get();

    exchange_ = exchange;
    // While PHP runs the exchange holds the count: a PHP thread that writes the response
    // itself ends it there (php_exchange::write_directly).
    if (in_flight_) {
        exchange->hold(std::move(*in_flight_));
        in_flight_.reset();
    }
    queue_group_ = 0;
    for (const worker_route& w : site_->workers) {
        if (w.file == out.script_filename) {
            queue_group_ = w.group;
            break;
        }
    }
    // The PHP thread may send a complete response itself (php_exchange), and the next request
    // then wakes this session. Not when one is already buffered here (pipelining): nothing
    // would. With the access log on, the PHP thread then writes the request's line too.
    const bool direct = !stream_.is_tls() && buffer_.size() == 0;
    if (direct) {
        exchange->allow_direct_write(stream_.socket().native_handle(), request_clock_,
                                     site_->access_log ? &site_->name : nullptr);
    }
    worker::job job(exchange, &exchange->request);
    switch (context_.pool.submit(queue_group_, std::move(job), &queue_ticket_)) {
        case worker::submit_result::assigned: watch_for_disconnect(direct); return;
        case worker::submit_result::queued:
            // The deadline names its request: a timer of an earlier request on this
            // connection that fires late finds another one being answered and does nothing.
            queue_timer_.expires_after(snapshot_->config.max_wait_time);
            queue_timer_.async_wait([self = shared_from_this(), id = request_id_](
                                        beast::error_code ec) { self->on_queue_timeout(ec, id); });
            watch_for_disconnect(direct);
            return;
        case worker::submit_result::rejected:
            context_.metrics.record_rejection(rejection::queue_full);
            drop_exchange();
            respond(503, "every PHP thread is busy and the queue is full; retry shortly",
                    keep_alive_, "Retry-After: 1\r\n");
            return;
    }
}

void http_session::on_queue_timeout(beast::error_code ec, std::uint64_t request_id) {
    if (ec || !exchange_ || exchange_->request.id != request_id) {
        return;
    }
    // Still queued past max_wait_time: take it back and answer for it. If a slot already took
    // it, the slot answers.
    if (context_.pool.withdraw(queue_group_, queue_ticket_)) {
        log()->warn(
            "[req {}] waited {} ms for a PHP thread; answered 503. Raise --threads or "
            "max_wait_time if this persists",
            request_id_, snapshot_->config.max_wait_time.count());
        context_.metrics.record_rejection(rejection::timeout);
        drop_exchange();
        ++watch_generation_;
        respond(503, "every PHP thread stayed busy; retry shortly", keep_alive_,
                "Retry-After: 1\r\n");
    }
}

void http_session::watch_for_disconnect(bool direct) {
    watching_direct_ = direct;
    arm_disconnect_watch();
    if (direct && !idle_timer_armed_) {
        arm_idle_timer(limits().idle_timeout);
    }
}

void http_session::arm_disconnect_watch() {
    // While PHP runs nothing is read; a readable socket then means either the next pipelined
    // request or the client leaving. After a direct write it is the next request, or the
    // client leaving, or, without the idle timer, nothing ever.
    auto generation = ++watch_generation_;
    stream_.socket().async_wait(net::ip::tcp::socket::wait_read,
                                [self = shared_from_this(), generation](beast::error_code ec) {
                                    self->on_disconnect_watch(ec, generation);
                                });
}

void http_session::arm_idle_timer(std::chrono::steady_clock::duration wait) {
    // Armed once and left running across requests, not armed and cancelled for each one (a
    // timer-queue insertion and a cancelled handler per request): when it fires it looks at
    // what the connection is doing then.
    idle_timer_armed_ = true;
    idle_timer_.expires_after(wait);
    idle_timer_.async_wait(
        [self = shared_from_this()](beast::error_code ec) { self->on_direct_idle(ec); });
}

void http_session::on_disconnect_watch(beast::error_code ec, std::uint64_t generation) {
    if (generation != watch_generation_ || !exchange_ || ec == net::error::operation_aborted) {
        return;
    }
    if (exchange_->stop_watching()) {
        // The PHP thread wrote the response itself; this is the next request or the client
        // leaving, which the next read tells.
        finish_direct_response(!ec);
        return;
    }
    // From here a direct write, if any, is announced by a notice (stop_watching()).
    const int fd = stream_.socket().native_handle();
    ssize_t n = -1;
    const std::size_t space = buffer_.max_size() - buffer_.size();
    const bool can_take = !stream_.is_tls() && space > 0;
    if (!ec) {
        if (can_take) {
            // Pipelined bytes are taken into the read buffer now, where the next request is
            // read from anyway, so that the socket becomes readable again only when more
            // arrives or the client leaves, and the watch goes on.
            const auto room = buffer_.prepare(std::min(space, read_buffer_slack));
            n = ::recv(fd, room.data(), room.size(), MSG_DONTWAIT);
            if (n > 0) {
                buffer_.commit(static_cast<std::size_t>(n));
            }
        } else {
            // TLS records cannot be taken apart from the TLS stream: only peek.
            char byte;
            n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        }
    }
    const bool would_block = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
    if (!ec && (would_block || (n > 0 && can_take))) {
        arm_disconnect_watch();
        return;
    }
    if (!ec && n > 0) {
        // Pipelined data that stays in the socket (TLS, or a full read buffer): the socket
        // stays readable, so watching further would spin; a departure then shows at the
        // next write.
        return;
    }
    // The client left (EOF or reset). A request still queued stays queued and runs with the
    // connection marked aborted, as under FrankenPHP and php-fpm: a script that ignores user
    // aborts (a webhook) completes, others end at their first output.
    log()->debug("[req {}] client disconnected while PHP was running", request_id_);
    drop_exchange();
    do_close();
}

void http_session::on_direct_idle(beast::error_code ec) {
    idle_timer_armed_ = false;
    if (ec || is_closed() || !exchange_ || !watching_direct_) {
        // Cancelled at close, or no directly written response is being watched now: the next
        // watch of one arms the timer again.
        return;
    }
    auto wait = limits().idle_timeout;
    if (const auto completed = exchange_->direct_completion()) {
        const auto idle = std::chrono::steady_clock::now() - *completed;
        if (idle >= wait) {
            // Keep-alive idle timeout, as do_wait_request() would have had it.
            drop_exchange();
            do_close();
            return;
        }
        wait = std::chrono::duration_cast<std::chrono::milliseconds>(wait - idle) +
               std::chrono::milliseconds(1);
    }
    // Still running (or idle for less than the timeout): look again then.
    arm_idle_timer(wait);
}

void http_session::on_direct_completion(std::uint64_t request_id) {
    if (!is_closed() && exchange_ && exchange_->request.id == request_id) {
        finish_direct_response(false);
    }
}

void http_session::on_exchange_failed(std::uint64_t request_id) {
    if (is_closed() || !exchange_ || exchange_->request.id != request_id) {
        return;
    }
    log_access("aborted");
    drop_exchange();
    do_close();
}

void http_session::finish_direct_response(bool readable) {
    // The PHP thread completed the response (metrics, access log, the in-flight count).
    exchange_.reset();
    queue_timer_.cancel();
    ++watch_generation_;
    do_wait_request(readable);
}

void http_session::drop_exchange() {
    if (!exchange_) {
        return;
    }
    // Empty when the PHP thread wrote the response itself and ended the count.
    if (std::optional<active_response> in_flight = exchange_->abort()) {
        in_flight_ = std::move(in_flight);
    }
    exchange_.reset();
}

void http_session::start_in_flight() {
    if (!in_flight_) {
        in_flight_.emplace(context_.active_responses);
    }
}

void http_session::deliver(std::uint64_t request_id, response_piece piece) {
    if (is_closed() || !exchange_ || exchange_->request.id != request_id) {
        return;
    }
    queue_timer_.cancel();
    if (!in_flight_) {
        // The first piece: the response is relayed, and this session completes it.
        in_flight_ = exchange_->take_in_flight();
    }
    if (piece.handoff) {
        // The PHP side is done: the file is this connection's alone from here, as a static
        // file is. Stop the disconnect watch unless a write (an interim response) is under way;
        // the watch's handler then ignores it by its generation.
        exchange_.reset();
        ++watch_generation_;
        if (state_ != connection_state::writing) {
            beast::error_code ignored;
            stream_.socket().cancel(ignored);
        }
        serve_handoff(*piece.handoff);
        return;
    }
    if (piece.status != 0) {
        response_status_ = piece.status;
    }
    response_bytes_ += piece.sent_directly;
    outgoing item;
    item.bytes = std::move(piece.bytes);
    item.file = std::move(piece.file);
    item.file_offset = piece.file_offset;
    item.file_left = piece.file_length;
    item.is_php_memory = !item.file;
    item.last = piece.last;
    item.keep_alive = piece.keep_alive;
    queue(std::move(item));
}

void http_session::respond(int status, std::string_view body, bool keep_alive,
                           std::string_view extra_headers) {
    start_in_flight();
    bool is_head =
        parser_ && parser_->is_header_done() && parser_->get().method() == http::verb::head;
    // An unread request body cannot be skipped reliably: close after the answer.
    if (!parser_ || !parser_->is_done()) {
        keep_alive = false;
    }
    const std::string text = short_answer_text(status, body);
    http1_head head(status);
    head.date().server().lines(extra_headers);
    if (status != 204 && status != 304) {
        if (!text.empty()) {
            head.field("Content-Type", "text/plain; charset=utf-8");
        }
        head.content_length(text.size());
    }
    // Before a request line was parsed there is no version: answer as HTTP/1.1 does.
    head.connection(keep_alive, parser_ ? static_cast<int>(parser_->get().version()) : 11);
    std::string bytes = head.finish();
    if (!is_head) {
        bytes.append(text);
    }
    response_status_ = head.status();
    outgoing item;
    item.bytes = std::move(bytes);
    item.last = true;
    item.keep_alive = keep_alive;
    queue(std::move(item));
}

// --- writing -----------------------------------------------------------------------------

void http_session::queue(outgoing item) {
    out_.push_back(std::move(item));
    if (state_ == connection_state::open) {
        do_write();
    }
}

void http_session::do_write() {
    while (!out_.empty()) {
        outgoing& item = out_.front();
        if (out_written_ == item.bytes.size()) {
            if (item.file && item.file_left > 0) {
                if (!load_file_chunk(item)) {
                    log_access("aborted");
                    drop_exchange();
                    do_close();
                    return;
                }
            } else {
                // The front piece is written.
                outgoing done = std::move(out_.front());
                out_.pop_front();
                out_written_ = 0;
                if (exchange_ && done.is_php_memory) {
                    exchange_->on_written(done.bytes.size());
                }
                if (done.last) {
                    move_to(connection_state::open);
                    finish_response(done.keep_alive);
                    return;
                }
                if (out_.empty() && file_fd_ >= 0) {
                    move_to(connection_state::open);
                    pump_file();
                    return;
                }
                continue;
            }
        }
        move_to(connection_state::writing);
        write_started_ = std::chrono::steady_clock::now();
        arm_rate_check();
        // One write_some at a time, each allowed write_timeout to make progress (nginx's
        // send_timeout), rather than one deadline for a whole piece whatever its size.
        stream_.expires_after(limits().write_timeout);
        stream_.async_write_some(
            net::buffer(item.bytes.data() + out_written_, item.bytes.size() - out_written_),
            beast::bind_front_handler(&http_session::on_write, shared_from_this()));
        return;
    }
    move_to(connection_state::open);
}

bool http_session::load_file_chunk(outgoing& item) {
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(item.file_left, spill_chunk));
    item.bytes.resize(want);
    const long n = item.file->read_at(item.file_offset, item.bytes.data(), want);
    if (n <= 0) {
        log()->error("[req {}] cannot read back the buffered response: {}; closing", request_id_,
                     n < 0 ? std::strerror(errno) : "unexpected end of file");
        return false;
    }
    item.bytes.resize(static_cast<std::size_t>(n));
    item.file_offset += static_cast<std::uint64_t>(n);
    item.file_left -= static_cast<std::uint64_t>(n);
    out_written_ = 0;
    return true;
}

void http_session::on_write(beast::error_code ec, std::size_t bytes) {
    response_bytes_ += bytes;
    rate_bytes_ += bytes;
    rate_busy_ += std::chrono::steady_clock::now() - write_started_;
    if (is_closed()) {
        return;  // closed meanwhile (too slow, or the client left); already logged
    }
    move_to(connection_state::open);
    if (ec) {
        log_access("aborted");
        drop_exchange();
        do_close();
        return;
    }
    out_written_ += bytes;
    if (exchange_ && out_.front().file) {
        exchange_->on_file_sent(bytes);
    }
    do_write();
}

void http_session::arm_rate_check() {
    const std::size_t rate = limits().min_write_rate;
    if (rate_timer_armed_ || rate == 0) {
        return;
    }
    rate_timer_armed_ = true;
    rate_bytes_ = 0;
    rate_busy_ = {};
    rate_timer_.expires_after(limits().write_timeout);
    rate_timer_.async_wait(
        [self = shared_from_this()](beast::error_code ec) { self->on_rate_check(ec); });
}

void http_session::on_rate_check(beast::error_code ec) {
    rate_timer_armed_ = false;
    if (ec || is_closed()) {
        return;
    }
    auto busy = rate_busy_;
    if (state_ == connection_state::writing) {
        const auto now = std::chrono::steady_clock::now();
        busy += now - write_started_;
        write_started_ = now;  // the rest of this write counts in the next window
    }
    const auto window = limits().write_timeout;
    const double seconds = std::chrono::duration<double>(busy).count();
    // Judged only when the client held the response up for half the window at least: a
    // client that takes whatever is written is never too slow, however slowly PHP writes.
    if (busy * 2 >= window &&
        static_cast<double>(rate_bytes_) < static_cast<double>(limits().min_write_rate) * seconds) {
        log()->debug("[req {}] {}:{} took {} bytes in {:.1f} s, below min_write_rate; closing",
                     request_id_, remote_addr_, remote_port_, rate_bytes_, seconds);
        context_.metrics.record_slow_client();
        log_access("too slow");
        // A reset, not a graceful close: what waits in the kernel's socket buffer for this
        // client is dropped at once instead of trickling out at its pace.
        beast::error_code ignored;
        stream_.socket().set_option(net::socket_base::linger(true, 0), ignored);
        drop_exchange();
        do_close();
        return;
    }
    if (state_ == connection_state::writing) {
        arm_rate_check();
    }
}

void http_session::log_access(std::string_view outcome) {
    if (site_ == nullptr || !site_->access_log || !parser_ || !parser_->is_header_done()) {
        return;
    }
    const auto& req = parser_->get();
    std::string target = target_path_;
    if (!target_query_.empty()) {
        target.append("?").append(target_query_);
    }
    access_entry entry;
    entry.remote_addr = client_addr();
    entry.method = std::string_view(req.method_string());
    entry.target = target;
    entry.http_version = static_cast<int>(req.version());
    entry.status = response_status_;
    entry.bytes = response_bytes_;
    entry.duration_ms = (now_seconds() - request_start_) * 1000;
    entry.site = site_->name;
    entry.request_id = request_id_;
    // The slot thread wrote its index before posting the response that led here.
    if (exchange_) {
        entry.slot = exchange_->request.slot;
    }
    entry.outcome = outcome;
    server::log_access(entry);
}

void http_session::finish_response(bool keep_alive) {
    log_access("");
    context_.metrics.record_response(response_status_,
                                     std::chrono::steady_clock::now() - request_clock_);
    queue_timer_.cancel();
    if (exchange_) {
        exchange_.reset();
        ++watch_generation_;
        // Stop the disconnect watch before reading the next request from this socket.
        beast::error_code ignored;
        stream_.socket().cancel(ignored);
    }
    if (!keep_alive || context_.stopping.load(std::memory_order_relaxed)) {
        // Still in flight while lingering: do_close() ends it, so a stop does not cut the
        // linger short and reset the connection before the client read the response.
        do_linger();
        return;
    }
    in_flight_.reset();
    do_wait_request();
}

void http_session::do_linger() {
    if (stream_.is_tls()) {
        // close_notify tells the client the response is complete (not truncated); the
        // shutdown then waits, within the deadline, for the client's own close_notify or EOF,
        // reading and dropping what it still sends meanwhile.
        stream_.expires_after(std::chrono::seconds(2));
        stream_.tls().async_shutdown(
            [self = shared_from_this()](beast::error_code) { self->do_close(); });
        return;
    }
    // Half-close, then drain what the client still sends for a moment, so an unread request
    // body does not make the kernel reset the connection before the client reads our answer.
    beast::error_code ec;
    stream_.socket().shutdown(net::ip::tcp::socket::shutdown_send, ec);
    if (ec) {
        do_close();
        return;
    }
    stream_.expires_after(std::chrono::seconds(2));
    do_linger_read();
}

void http_session::do_linger_read() {
    buffer_.clear();
    stream_.async_read_some(buffer_.prepare(read_buffer_slack),
                            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                if (ec) {
                                    self->do_close();
                                    return;
                                }
                                self->do_linger_read();
                            });
}

void http_session::move_to(connection_state next) {
    // open <-> writing while the connection lives; nothing leaves closed.
    if (state_ != connection_state::closed) {
        state_ = next;
    }
}

void http_session::do_close() {
    if (is_closed()) {
        return;
    }
    move_to(connection_state::closed);
    // Before the socket closes: a PHP thread may be writing to it directly (php_exchange).
    drop_exchange();
    idle_timer_.cancel();
    rate_timer_.cancel();
    in_flight_.reset();
    queue_timer_.cancel();
    beast::error_code ec;
    stream_.socket().shutdown(net::ip::tcp::socket::shutdown_both, ec);
    stream_.close();
}

}  // namespace spindle::server
