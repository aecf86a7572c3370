#include "server/http2/http2_session.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/string.hpp>
#include <cctype>
#include <chrono>
#include <string>

#include <spdlog/spdlog.h>

#include "server/exchange/php_exchange.hpp"
#include "server/http/access_log.hpp"
#include "server/http/forwarded_client.hpp"
#include "server/http/http2_head.hpp"
#include "server/http/request_headers.hpp"
#include "server/http/status_text.hpp"
#include "server/http/x_sendfile.hpp"
#include "server/http2/http2_stream.hpp"
#include "server/routing/request_decision.hpp"
#include "worker/pool.hpp"

namespace spindle::server {

namespace net = boost::asio;
namespace beast = boost::beast;

namespace {

// A read takes what the socket has, up to this; nghttp2 consumes it all before the next.
constexpr std::size_t read_size = 16 * 1024;
// Output is gathered up to this before a write: several small frames go in one system call.
constexpr std::size_t write_batch = 64 * 1024;
// The stream window for request bodies: uploads are not held to 64 KiB per round trip.
constexpr std::uint32_t stream_window = 1024 * 1024;
// Header fields in one request; more -> 431, as over HTTP/1.1.
constexpr std::size_t max_header_fields = 256;

std::shared_ptr<spdlog::logger> log() {
    return spdlog::get("server");
}

double now_seconds() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

http2_session* self_of(void* user_data) {
    return static_cast<http2_session*>(user_data);
}

// Go's net/http (and so FrankenPHP's getallheaders()) spells request field names
// "Content-Type" whatever the client sent; HTTP/2 sends them in lower case.
std::string canonical_name(std::string_view name) {
    std::string out(name);
    bool upper = true;
    for (char& c : out) {
        c = static_cast<char>(upper ? std::toupper(static_cast<unsigned char>(c))
                                    : std::tolower(static_cast<unsigned char>(c)));
        upper = c == '-';
    }
    return out;
}

nghttp2_nv make_nv(std::string_view name, std::string_view value) {
    return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
            reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(),
            value.size(), NGHTTP2_NV_FLAG_NONE};
}

// A head as nghttp2 takes it; the fields point into `head` and `status`, which outlive the
// submit call (nghttp2 copies them).
std::vector<nghttp2_nv> head_nva(const response_head& head, const std::string& status) {
    std::vector<nghttp2_nv> nva;
    nva.reserve(head.fields.size() + 1);
    nva.push_back(make_nv(":status", status));
    for (const head_field& f : head.fields) {
        nva.push_back(make_nv(f.name, f.value));
    }
    return nva;
}

}  // namespace

http2_session::http2_session(std::shared_ptr<void> owner, session_stream& stream,
                             http_context& context, connection_facts facts, std::string received)
    : owner_(std::move(owner)),
      stream_(stream),
      context_(context),
      facts_(std::move(facts)),
      received_(std::move(received)),
      read_buffer_(read_size),
      idle_timer_(stream.get_executor()) {
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, &on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &on_stream_close);
    nghttp2_option* options = nullptr;
    nghttp2_option_new(&options);
    // Streams over SETTINGS_MAX_CONCURRENT_STREAMS are refused from the first, before the
    // client has acknowledged the setting.
    nghttp2_option_set_peer_max_concurrent_streams(options, max_streams);
    nghttp2_session_server_new2(&session_, callbacks, this, options);
    nghttp2_option_del(options);
    nghttp2_session_callbacks_del(callbacks);
}

http2_session::~http2_session() {
    nghttp2_session_del(session_);
}

void http2_session::start() {
    // The HTTP/1.1 session's deadline (handshake, first request) ends here: the idle timer
    // and each write's own deadline judge the connection from now on.
    stream_.tcp().expires_never();
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, max_streams},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, stream_window},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE,
         static_cast<std::uint32_t>(context_.snapshot()->config.limits.max_header_size)},
    };
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings));
    // The connection window too, so that several uploads at once are not held to 64 KiB.
    nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0,
                                          static_cast<std::int32_t>(stream_window) * 16);
    const std::string received = std::move(received_);
    if (!receive(reinterpret_cast<const std::uint8_t*>(received.data()), received.size())) {
        return;
    }
    arm_idle_timer();
    do_read();
    do_write();
}

// --- reading -----------------------------------------------------------------------------

bool http2_session::receive(const std::uint8_t* data, std::size_t size) {
    const ssize_t used = nghttp2_session_mem_recv(session_, data, size);
    if (used < 0) {
        // A protocol error or a flood (CONTINUATION, PING, SETTINGS, resets): the connection
        // ends with GOAWAY, which nghttp2 does not always queue itself, and its streams with it.
        log()->debug("HTTP/2 connection from {}: {}", facts_.remote_addr,
                     nghttp2_strerror(static_cast<int>(used)));
        const std::uint32_t code =
            used == NGHTTP2_ERR_FLOODED || used == NGHTTP2_ERR_TOO_MANY_CONTINUATIONS
                ? NGHTTP2_ENHANCE_YOUR_CALM
                : NGHTTP2_PROTOCOL_ERROR;
        nghttp2_session_terminate_session(session_, code);
        advance(connection_phase::failing);
        do_write();
        return false;
    }
    return true;
}

void http2_session::do_read() {
    if (phase_ == connection_phase::closed) {
        return;
    }
    stream_.async_read_some(net::buffer(read_buffer_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t bytes) {
                                if (self->phase_ == connection_phase::closed) {
                                    return;  // the streams nghttp2 would name are gone
                                }
                                if (ec) {
                                    self->close();
                                    return;
                                }
                                if (self->receive(self->read_buffer_.data(), bytes)) {
                                    self->do_read();
                                }
                                self->do_write();
                            });
}

// --- writing -----------------------------------------------------------------------------

void http2_session::do_write() {
    if (writing_ || phase_ == connection_phase::closed) {
        return;
    }
    write_buffer_.clear();
    while (write_buffer_.size() < write_batch) {
        const std::uint8_t* data = nullptr;
        const ssize_t n = nghttp2_session_mem_send(session_, &data);
        if (n < 0) {
            close();
            return;
        }
        if (n == 0) {
            break;
        }
        write_buffer_.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
    }
    if (write_buffer_.empty()) {
        if ((nghttp2_session_want_read(session_) == 0 &&
             nghttp2_session_want_write(session_) == 0) ||
            (phase_ == connection_phase::draining && streams_.empty()) ||
            phase_ == connection_phase::failing) {
            close();
        }
        return;
    }
    writing_ = true;
    // A failing connection gets a moment to take its GOAWAY, not the write timeout: a flood's
    // sender may well never read.
    if (phase_ == connection_phase::failing) {
        stream_.expires_after(std::chrono::seconds(1));
    } else {
        stream_.expires_after(context_.snapshot()->config.limits.write_timeout);
    }
    net::async_write(stream_, net::buffer(write_buffer_),
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                         self->writing_ = false;
                         if (ec) {
                             self->close();
                             return;
                         }
                         // The read pending meanwhile keeps no deadline of the write's: the
                         // idle timer judges a quiet connection.
                         self->stream_.tcp().expires_never();
                         self->do_write();
                     });
}

void http2_session::arm_idle_timer() {
    idle_timer_.expires_after(context_.snapshot()->config.limits.idle_timeout);
    idle_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
        if (ec || self->phase_ == connection_phase::closed) {
            return;
        }
        if (!self->streams_.empty()) {
            self->arm_idle_timer();
            return;
        }
        self->start_draining();
        self->do_write();
    });
}

void http2_session::advance(connection_phase to) noexcept {
    phase_ = std::max(phase_, to);
}

void http2_session::start_draining() {
    if (phase_ != connection_phase::open) {
        return;
    }
    // GOAWAY names the last stream taken, so the client knows which to retry elsewhere;
    // the connection ends once the streams before it are answered.
    nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE,
                          nghttp2_session_get_last_proc_stream_id(session_), NGHTTP2_NO_ERROR,
                          nullptr, 0);
    advance(connection_phase::draining);
}

void http2_session::close() {
    if (phase_ == connection_phase::closed) {
        return;
    }
    advance(connection_phase::closed);
    idle_timer_.cancel();
    // Every stream still open ends here: PHP learns its client is gone.
    for (auto& [id, stream] : streams_) {
        if (stream->queue_timer) {
            stream->queue_timer->cancel();
        }
        if (stream->exchange) {
            if (stream->phase() == stream_phase::queued) {
                context_.pool.withdraw(stream->group, stream->ticket);
            }
            stream->exchange->abort();
        }
        log_access(*stream, "aborted");
    }
    streams_.clear();
    by_request_.clear();
    beast::error_code ec;
    stream_.socket().shutdown(net::ip::tcp::socket::shutdown_both, ec);
    stream_.close();
}

// --- nghttp2 callbacks -------------------------------------------------------------------

bool http2_session::has_room() {
    std::erase_if(orphans_, [](const std::weak_ptr<php_exchange>& e) { return e.expired(); });
    return streams_.size() + orphans_.size() < max_streams;
}

int http2_session::on_begin_headers(nghttp2_session* session, const nghttp2_frame* frame,
                                    void* user_data) {
    http2_session* self = self_of(user_data);
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) {
        return 0;
    }
    const std::int32_t id = frame->hd.stream_id;
    if (self->phase_ == connection_phase::open &&
        self->context_.stopping.load(std::memory_order_relaxed)) {
        self->start_draining();
    }
    if (self->phase_ != connection_phase::open || !self->has_room()) {
        // No stream object: its fields and DATA are ignored, and the client may retry it.
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, id, NGHTTP2_REFUSED_STREAM);
        return 0;
    }
    auto stream = std::make_unique<http2_stream>(id);
    nghttp2_session_set_stream_user_data(session, id, stream.get());
    self->streams_.emplace(id, std::move(stream));
    return 0;
}

int http2_session::on_header(nghttp2_session* session, const nghttp2_frame* frame,
                             const std::uint8_t* name_bytes, std::size_t name_length,
                             const std::uint8_t* value_bytes, std::size_t value_length,
                             std::uint8_t, void* user_data) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) {
        return 0;  // trailers are not passed on, as over HTTP/1.1
    }
    auto* stream = static_cast<http2_stream*>(
        nghttp2_session_get_stream_user_data(session, frame->hd.stream_id));
    if (stream == nullptr) {
        return 0;
    }
    const std::string_view name(reinterpret_cast<const char*>(name_bytes), name_length);
    const std::string_view value(reinterpret_cast<const char*>(value_bytes), value_length);
    // Counted as SETTINGS_MAX_HEADER_LIST_SIZE counts (RFC 9113 6.5.2); past the limit the
    // fields are dropped as they come, so an HPACK bomb costs no memory, and 431 answers.
    stream->header_bytes += name_length + value_length + 32;
    const std::size_t limit =
        self_of(user_data)->context_.snapshot()->config.limits.max_header_size;
    if (stream->header_bytes > limit) {
        return 0;
    }
    if (name.starts_with(':')) {
        // nghttp2 checked the pseudo-fields: known, once each, before the others.
        if (name == ":method") {
            stream->method = value;
        } else if (name == ":scheme") {
            stream->scheme = value;
        } else if (name == ":authority") {
            stream->authority = value;
        } else if (name == ":path") {
            stream->target = value;
        }
        return 0;
    }
    ++stream->header_fields;
    if (name == "cookie") {
        stream->cookie.append(stream->cookie.empty() ? "" : "; ").append(value);
        return 0;
    }
    if (name == "host" && stream->authority.empty()) {
        stream->authority = value;
        return 0;
    }
    if (name == "host" || !is_forwardable_header_name(name) || name == "proxy") {
        return 0;
    }
    stream->headers.push_back({canonical_name(name), std::string(value)});
    return 0;
}

int http2_session::on_frame_recv(nghttp2_session* session, const nghttp2_frame* frame,
                                 void* user_data) {
    http2_session* self = self_of(user_data);
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) {
        return 0;
    }
    auto* stream = static_cast<http2_stream*>(
        nghttp2_session_get_stream_user_data(session, frame->hd.stream_id));
    if (stream == nullptr || stream->phase() != stream_phase::receiving) {
        return 0;
    }
    const config::http_limits& limits = self->context_.snapshot()->config.limits;
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
        // The header block is complete: the request counts from here, as over HTTP/1.1.
        stream->request_id = self->context_.next_request_id.fetch_add(1, std::memory_order_relaxed);
        stream->start_time = now_seconds();
        stream->clock = std::chrono::steady_clock::now();
        stream->snapshot = self->context_.snapshot();
        stream->in_flight.emplace(self->context_.active_responses);
        self->by_request_.emplace(stream->request_id, stream);
        if (stream->header_bytes > limits.max_header_size) {
            self->answer(*stream, 431, "request header block too large");
            return 0;
        }
        if (stream->header_fields > max_header_fields) {
            self->answer(*stream, 431, "too many header fields");
            return 0;
        }
        for (const sapi::header& h : stream->headers) {
            if (beast::iequals(h.name, "content-length")) {
                // nghttp2 checked it is a number that the DATA frames will match.
                if (std::stoull(h.value) > limits.max_body_size) {
                    self->answer(*stream, 413, "request body too large");
                    return 0;
                }
            }
        }
        stream->body = std::make_unique<body_store>(limits.body_memory_size);
    }
    if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) {
        self->handle_request(*stream);
    }
    return 0;
}

int http2_session::on_data_chunk(nghttp2_session* session, std::uint8_t, std::int32_t stream_id,
                                 const std::uint8_t* data, std::size_t length, void* user_data) {
    http2_session* self = self_of(user_data);
    auto* stream =
        static_cast<http2_stream*>(nghttp2_session_get_stream_user_data(session, stream_id));
    if (stream == nullptr || stream->phase() != stream_phase::receiving || !stream->body) {
        return 0;  // answered already (413, 431): the rest of the body is dropped
    }
    if (stream->body->size() + length > stream->snapshot->config.limits.max_body_size) {
        self->answer(*stream, 413, "request body too large");
        return 0;
    }
    if (auto error = stream->body->append(reinterpret_cast<const char*>(data), length)) {
        log()->error("[req {}] cannot store request body: {}; check free space in TMPDIR",
                     stream->request_id, error.message());
        self->answer(*stream, 500, "cannot store the request body");
    }
    return 0;
}

int http2_session::on_stream_close(nghttp2_session*, std::int32_t stream_id,
                                   std::uint32_t error_code, void* user_data) {
    http2_session* self = self_of(user_data);
    const auto it = self->streams_.find(stream_id);
    if (it == self->streams_.end()) {
        return 0;
    }
    http2_stream& stream = *it->second;
    if (stream.queue_timer) {
        stream.queue_timer->cancel();
    }
    const bool complete = error_code == NGHTTP2_NO_ERROR && stream.body_complete &&
                          stream.body_empty() && stream.phase() == stream_phase::responding;
    if (stream.exchange) {
        if (stream.phase() == stream_phase::queued &&
            self->context_.pool.withdraw(stream.group, stream.ticket)) {
            stream.exchange.reset();  // never ran
        } else if (!complete) {
            // Reset while PHP runs: the script learns its client left, and the stream keeps
            // counting against max_streams until its PHP thread lets the exchange go.
            stream.exchange->abort();
            self->orphans_.push_back(stream.exchange);
        }
    }
    if (stream.request_id != 0) {
        self->log_access(stream, complete ? "" : "aborted");
        if (complete) {
            self->context_.metrics.record_response(stream.status,
                                                   std::chrono::steady_clock::now() - stream.clock);
        }
        self->by_request_.erase(stream.request_id);
    }
    self->streams_.erase(it);
    if (self->streams_.empty() && self->phase_ == connection_phase::open) {
        if (self->context_.stopping.load(std::memory_order_relaxed)) {
            self->start_draining();
        } else {
            self->arm_idle_timer();
        }
    }
    return 0;
}

ssize_t http2_session::read_data(nghttp2_session*, std::int32_t, std::uint8_t* buffer,
                                 std::size_t length, std::uint32_t* data_flags,
                                 nghttp2_data_source* source, void*) {
    auto* stream = static_cast<http2_stream*>(source->ptr);
    const long n = stream->read_body(buffer, length);
    if (n < 0) {
        log()->warn("[req {}] response body file shrank or became unreadable; stream reset",
                    stream->request_id);
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    }
    if (stream->body_empty()) {
        if (stream->body_complete) {
            *data_flags |= NGHTTP2_DATA_FLAG_EOF;
        } else if (n == 0) {
            // PHP has not produced more yet: deliver() resumes the stream.
            stream->is_deferred = true;
            return NGHTTP2_ERR_DEFERRED;
        }
    }
    return n;
}

// --- answering ---------------------------------------------------------------------------

void http2_session::handle_request(http2_stream& stream) {
    stream.advance(stream_phase::queued);
    if (stream.method == "OPTIONS" && stream.target == "*") {
        answer(stream, 204, "", {{"Allow", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"}});
        return;
    }
    if (stream.method == "CONNECT") {
        answer(stream, 405, "CONNECT is not supported");
        return;
    }
    if (!stream.target.starts_with('/')) {
        answer(stream, 400, "request target must be an absolute path");
        return;
    }
    if (!stream.authority.empty() && !is_valid_host(stream.authority)) {
        answer(stream, 400, "invalid :authority");
        return;
    }
    const std::size_t question = stream.target.find('?');
    const std::string_view target(stream.target);
    const std::string_view path = target.substr(0, question);
    const std::string_view query =
        question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
    request_decision d = decide_request(*stream.snapshot, facts_.address, stream.authority, path,
                                        query, stream_.is_tls(), context_.acme_challenges);
    stream.site = d.site;
    switch (d.what) {
        case request_decision::action::answer: answer(stream, d.status, d.reason); return;
        case request_decision::action::fixed: answer_fixed(stream, d.fixed); return;
        case request_decision::action::redirect_https: {
            std::string location = "https://";
            location.append(host_without_port(stream.authority));
            if (d.https_port != 443) {
                location.append(":").append(std::to_string(d.https_port));
            }
            location.append(stream.target);
            answer(stream, 308, "", {{"Location", std::move(location)}});
            return;
        }
        case request_decision::action::redirect:
            answer(stream, 308, "", {{"Location", d.r.location}});
            return;
        case request_decision::action::static_file: {
            if (stream.method != "GET" && stream.method != "HEAD") {
                answer(stream, 405, "static files answer GET and HEAD only",
                       {{"Allow", "GET, HEAD"}});
                return;
            }
            const int fd = ::open(d.r.file.c_str(), O_RDONLY | O_CLOEXEC);
            struct stat st {};
            if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
                if (fd >= 0) {
                    ::close(fd);
                }
                answer(stream, 404, "");
                return;
            }
            serve_file(stream, fd, st, d.r.file, {}, {});
            return;
        }
        case request_decision::action::php: dispatch_php(stream, d.r, *d.router); return;
    }
}

void http2_session::dispatch_php(http2_stream& stream, route& r, const router_options& router) {
    const site_context& site = *stream.site;
    auto exchange = std::make_shared<php_exchange>(
        shared_from_this(), context_, stream.snapshot, stream.method == "HEAD", true, site.headers,
        site.encode ? &*site.encode : nullptr, site.x_sendfile ? &*site.x_sendfile : nullptr);
    exchange->use_http2();
    sapi::request& out = exchange->request;
    out.id = stream.request_id;
    out.method = stream.method;
    out.uri = stream.target;
    const std::size_t question = stream.target.find('?');
    out.query = question == std::string::npos ? std::string() : stream.target.substr(question + 1);
    out.uri.resize(question == std::string::npos ? out.uri.size() : question);
    if (!out.query.empty()) {
        out.uri.append("?").append(out.query);
    }
    out.http_version = 20;
    out.headers.reserve(stream.headers.size() + 2);
    out.headers.push_back({"Host", stream.authority});
    if (!stream.cookie.empty()) {
        out.headers.push_back({"Cookie", stream.cookie});
    }
    out.headers.insert(out.headers.end(), stream.headers.begin(), stream.headers.end());
    if (site.x_sendfile) {
        set_x_sendfile_request_headers(*site.x_sendfile, out.headers);
    }
    forwarded_client forwarded;
    if (context_.forwarding.is_enabled() &&
        is_trusted_peer(context_.forwarding, facts_.remote_addr, facts_.peer_is_unix)) {
        std::vector<field_view> fields;
        for (const sapi::header& h : out.headers) {
            fields.push_back({h.name, h.value});
        }
        forwarded = read_forwarded(context_.forwarding, fields);
    }
    out.remote_addr = forwarded.address ? *forwarded.address : facts_.remote_addr;
    out.remote_port = forwarded.address ? forwarded.port : facts_.remote_port;
    out.server_addr = facts_.local_addr;
    out.is_https = forwarded.is_https.value_or(stream_.is_tls());
    out.tls_protocol = facts_.tls_protocol;
    out.tls_cipher = facts_.tls_cipher;
    std::string_view host = stream.authority;
    if (forwarded.host) {
        host = *forwarded.host;
        out.headers.front().value = host;
    }
    out.server_port = forwarded.server_port.value_or(server_port_of(host, out.is_https));
    out.server_name.assign(host.empty() ? std::string_view(facts_.local_addr)
                                        : host_without_port(host));
    out.document_root = router.document_root.empty() ? router.root : router.document_root;
    out.env_index = site.env_index;
    out.script_filename = std::move(r.file);
    out.script_name = std::move(r.script_name);
    out.path_info = std::move(r.path_info);
    for (const sapi::header& h : stream.headers) {
        if (beast::iequals(h.name, "content-type")) {
            out.content_type = h.value;
        }
    }
    out.content_length = stream.body->size();
    out.start_time = stream.start_time;
    exchange->body = std::move(stream.body);
    out.body = exchange->body.get();
    out.sink = exchange.get();
    exchange->hold(std::move(*stream.in_flight));
    stream.in_flight.reset();
    stream.exchange = exchange;
    stream.group = 0;
    for (const worker_route& w : site.workers) {
        if (w.file == out.script_filename) {
            stream.group = w.group;
            break;
        }
    }
    worker::job job(exchange, &exchange->request);
    switch (context_.pool.submit(stream.group, std::move(job), &stream.ticket)) {
        case worker::submit_result::assigned: stream.advance(stream_phase::running); return;
        case worker::submit_result::queued: {
            stream.queue_timer = std::make_unique<net::steady_timer>(stream_.get_executor());
            stream.queue_timer->expires_after(stream.snapshot->config.max_wait_time);
            stream.queue_timer->async_wait([self = shared_from_this(), id = stream.id,
                                            request_id = stream.request_id](beast::error_code ec) {
                if (!ec) {
                    self->on_queue_timeout(id, request_id);
                }
            });
            return;
        }
        case worker::submit_result::rejected:
            context_.metrics.record_rejection(rejection::queue_full);
            stream.in_flight = exchange->abort();
            stream.exchange.reset();
            answer(stream, 503, "every PHP thread is busy and the queue is full; retry shortly",
                   {{"Retry-After", "1"}});
            return;
    }
}

void http2_session::on_queue_timeout(std::int32_t stream_id, std::uint64_t request_id) {
    const auto it = streams_.find(stream_id);
    if (it == streams_.end() || it->second->request_id != request_id) {
        return;
    }
    http2_stream& stream = *it->second;
    if (stream.phase() != stream_phase::queued || !stream.exchange ||
        !context_.pool.withdraw(stream.group, stream.ticket)) {
        return;  // a slot took it: the slot answers
    }
    log()->warn(
        "[req {}] waited {} ms for a PHP thread; answered 503. Raise --threads or max_wait_time "
        "if this persists",
        request_id, stream.snapshot->config.max_wait_time.count());
    context_.metrics.record_rejection(rejection::timeout);
    stream.in_flight = stream.exchange->abort();
    stream.exchange.reset();
    answer(stream, 503, "every PHP thread stayed busy; retry shortly", {{"Retry-After", "1"}});
    do_write();
}

void http2_session::deliver(std::uint64_t request_id, response_piece piece) {
    const auto it = by_request_.find(request_id);
    if (phase_ == connection_phase::closed || it == by_request_.end()) {
        return;  // the stream was reset or the connection closed: PHP was told
    }
    http2_stream& stream = *it->second;
    if (stream.queue_timer) {
        stream.queue_timer->cancel();
    }
    stream.advance(stream_phase::running);
    if (!stream.in_flight && stream.exchange) {
        // The first piece: this connection completes the response from here.
        if (std::optional<active_response> taken = stream.exchange->take_in_flight()) {
            stream.in_flight = std::move(taken);
        }
    }
    if (piece.handoff) {
        stream.exchange.reset();  // the PHP side is done; the file is this connection's
        serve_handoff(stream, *piece.handoff);
        do_write();
        return;
    }
    const bool has_bytes = !piece.bytes.empty() || piece.file;
    const bool is_final_head = piece.head && piece.head->status >= 200;
    if (piece.head && !is_final_head) {
        // An interim (1xx) head: a HEADERS frame without END_STREAM, the final one follows.
        const std::string status = std::to_string(piece.head->status);
        const std::vector<nghttp2_nv> nva = head_nva(*piece.head, status);
        nghttp2_submit_headers(session_, NGHTTP2_FLAG_NONE, stream.id, nullptr, nva.data(),
                               nva.size(), nullptr);
    }
    if (has_bytes) {
        body_chunk chunk;
        chunk.is_php_memory = !piece.file;
        chunk.bytes = std::move(piece.bytes);
        chunk.spill = std::move(piece.file);
        chunk.offset = piece.file_offset;
        chunk.left = piece.file_length;
        stream.queue_body(std::move(chunk));
    }
    stream.body_complete = stream.body_complete || piece.last;
    if (is_final_head) {
        submit_head(stream, *piece.head, !(piece.last && !has_bytes));
    } else if (stream.is_deferred && stream.phase() == stream_phase::responding) {
        stream.is_deferred = false;
        nghttp2_session_resume_data(session_, stream.id);
    }
    do_write();
}

void http2_session::on_direct_completion(std::uint64_t) {}

void http2_session::on_exchange_failed(std::uint64_t request_id) {
    const auto it = by_request_.find(request_id);
    if (phase_ == connection_phase::closed || it == by_request_.end()) {
        return;
    }
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, it->second->id, NGHTTP2_INTERNAL_ERROR);
    do_write();
}

void http2_session::submit_head(http2_stream& stream, const response_head& head, bool has_body) {
    stream.advance(stream_phase::responding);
    stream.status = head.status;
    const std::string status = std::to_string(head.status);
    const std::vector<nghttp2_nv> nva = head_nva(head, status);
    nghttp2_data_provider provider{};
    provider.source.ptr = &stream;
    provider.read_callback = &read_data;
    nghttp2_submit_response(session_, stream.id, nva.data(), nva.size(),
                            has_body ? &provider : nullptr);
}

response_head http2_session::finish_head(http2_stream& stream, http2_head& head) const {
    // No site for an ACME challenge answer or a host no site serves: no header rules.
    return head.finish(stream.site != nullptr ? &stream.site->headers : nullptr);
}

void http2_session::answer(http2_stream& stream, int status, std::string_view reason,
                           std::vector<head_field> extra) {
    std::string text = short_answer_text(status, reason);
    http2_head head(status);
    head.date().server();
    for (const head_field& f : extra) {
        head.field(f.name, f.value);
    }
    if (status_has_body(status)) {
        if (!text.empty()) {
            head.field("content-type", "text/plain; charset=utf-8");
        }
        head.content_length(text.size());
    }
    const bool has_body = !text.empty() && stream.method != "HEAD";
    stream.body_complete = true;
    if (has_body) {
        body_chunk chunk;
        chunk.bytes = std::move(text);
        stream.queue_body(std::move(chunk));
    }
    submit_head(stream, head.finish(), has_body);
}

void http2_session::answer_fixed(http2_stream& stream, const config::respond_rule& rule) {
    http2_head head(rule.status);
    head.date().server();
    const bool has_body = status_has_body(rule.status);
    if (has_body) {
        if (!rule.body.empty()) {
            head.field("content-type", "text/plain; charset=utf-8");
        }
        head.content_length(rule.body.size());
    }
    stream.body_complete = true;
    const bool sends_body = has_body && !rule.body.empty() && stream.method != "HEAD";
    if (sends_body) {
        body_chunk chunk;
        chunk.bytes = rule.body;
        stream.queue_body(std::move(chunk));
    }
    submit_head(stream, finish_head(stream, head), sends_body);
}

void http2_session::serve_handoff(http2_stream& stream, const file_handoff& handoff) {
    const handoff_file file = open_handoff_file(*stream.site->x_sendfile, handoff);
    if (file.status != 0) {
        log()->warn(
            "[req {}] {} refused ({}): {}; check the path the script sets or the site's "
            "x_sendfile directories",
            stream.request_id, handoff.is_accel_redirect ? "X-Accel-Redirect" : "X-Sendfile",
            file.status, file.reason);
        answer(stream, file.status, "");
        return;
    }
    struct stat st {};
    ::fstat(file.fd, &st);  // succeeded in open_handoff_file
    serve_file(stream, file.fd, st, file.name, handoff.content_type,
               parse_field_lines(handoff.headers));
}

void http2_session::serve_file(http2_stream& stream, int fd, const struct stat& st,
                               const std::string& name, std::string_view content_type,
                               std::vector<head_field> extra) {
    static_request request;
    request.is_head = stream.method == "HEAD";
    request.is_safe = request.is_head || stream.method == "GET";
    for (const sapi::header& h : stream.headers) {
        if (beast::iequals(h.name, "if-none-match")) {
            request.if_none_match = h.value;
        } else if (beast::iequals(h.name, "if-modified-since")) {
            request.if_modified_since = h.value;
        } else if (beast::iequals(h.name, "range")) {
            request.range = h.value;
        } else if (beast::iequals(h.name, "if-range")) {
            request.if_range = h.value;
        } else if (beast::iequals(h.name, "accept-encoding")) {
            request.accept_encoding.append(request.accept_encoding.empty() ? "" : ", ")
                .append(h.value);
        }
    }
    const site_context& site = *stream.site;
    static_response plan = plan_static_response(fd, st, name, content_type, request,
                                                site.encode ? &*site.encode : nullptr,
                                                context_.compressed_files, extra);
    if (plan.status == 304 || plan.status == 416) {
        ::close(fd);
        answer(stream, plan.status, plan.reason, std::move(plan.fields));
        return;
    }
    http2_head head(plan.status);
    head.date().server();
    head.content_length(plan.length);
    for (const head_field& f : plan.fields) {
        head.field(f.name, f.value);
    }
    body_chunk chunk;
    if (plan.compressed) {
        ::close(fd);
        chunk.shared = std::move(plan.compressed);
    } else {
        chunk.fd = fd;
        chunk.offset = plan.range.first;
        chunk.left = plan.range.length;
    }
    const bool has_body = !request.is_head && plan.length > 0;
    if (has_body) {
        stream.queue_body(std::move(chunk));
    } else if (chunk.fd >= 0) {
        ::close(chunk.fd);
    }
    stream.body_complete = true;
    submit_head(stream, finish_head(stream, head), has_body);
}

void http2_session::log_access(const http2_stream& stream, std::string_view outcome) const {
    if (stream.site == nullptr || !stream.site->access_log) {
        return;
    }
    access_entry entry;
    entry.remote_addr = facts_.remote_addr;
    entry.method = stream.method;
    entry.target = stream.target;
    entry.http_version = 20;
    entry.status = stream.status;
    entry.bytes = stream.bytes_sent;
    entry.duration_ms = (now_seconds() - stream.start_time) * 1000;
    entry.site = stream.site->name;
    entry.request_id = stream.request_id;
    if (stream.exchange) {
        entry.slot = stream.exchange->request.slot;
    }
    entry.outcome = outcome;
    server::log_access(entry);
}

}  // namespace spindle::server
