#include "server/exchange/php_exchange.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <new>

#include <spdlog/spdlog.h>

#include "server/http/access_log.hpp"
#include "server/http/field_lists.hpp"
#include "server/http/http1_head.hpp"
#include "server/http/http2_head.hpp"
#include "server/http/status_text.hpp"
#include "server/routing/http_context.hpp"

namespace spindle::server {
namespace {

/// Milliseconds from `start` (seconds since the epoch, as request::start_time) to now.
double milliseconds_since(double start) {
    using namespace std::chrono;
    return (duration<double>(system_clock::now().time_since_epoch()).count() - start) * 1000;
}

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// Whether a Vary value already covers Accept-Encoding ("*" covers everything).
bool varies_on_accept_encoding(std::string_view vary) {
    return find_list_element(vary, [](std::string_view item) {
        return item == "*" || iequals(item, "accept-encoding");
    });
}

void append_hex(std::string& out, std::uint64_t n) {
    char digits[24];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n, 16);
    out.append(digits, end);
}

}  // namespace

php_exchange::php_exchange(std::shared_ptr<response_connection> connection, http_context& context,
                           std::shared_ptr<const server_snapshot> snapshot, bool is_head,
                           bool client_keep_alive,
                           const std::vector<config::header_rule>& header_rules,
                           const encode::encode_policy* encode,
                           const config::x_sendfile_config* x_sendfile)
    : connection_(std::move(connection)),
      context_(context),
      snapshot_(std::move(snapshot)),
      is_head_(is_head),
      header_rules_(header_rules),
      encode_(encode),
      x_sendfile_(x_sendfile),
      client_keep_alive_(client_keep_alive) {}

php_exchange::~php_exchange() {
    // Memory pieces the session never wrote (it closed, or dropped them as stale).
    context_.response_memory.give_back(in_flight_);
}

void php_exchange::send_informational(int status,
                                      const std::vector<sapi::header>& headers) noexcept {
    // Interim responses exist only in HTTP/1.1, and only before the final head.
    if (phase_ >= output_phase::committed || request.http_version < 11) {
        return;
    }
    try {
        send_interim(status, headers);
    } catch (const std::bad_alloc&) {
        fail_out_of_memory();
    }
}

void php_exchange::send_interim(int status, const std::vector<sapi::header>& headers) {
    if (is_http2_) {
        http2_head head(status);
        for (const auto& h : headers) {
            if (!iequals(h.name, "content-type")) {
                head.field(h.name, h.value);
            }
        }
        head_ = std::make_unique<response_head>(head.finish());
        post({}, false);
        return;
    }
    http1_head head(status);
    for (const auto& h : headers) {
        // Content-Type is PHP's default header, meaningless on an interim response.
        if (iequals(h.name, "content-type")) {
            continue;
        }
        head.field(h.name, h.value);
    }
    post(head.finish(), false);
}

void php_exchange::send_head(int status, std::string_view reason,
                             std::vector<sapi::header> headers) noexcept {
    if (phase_ != output_phase::awaiting_head) {
        return;  // one head per response
    }
    advance(output_phase::head_set);
    status_ = status;
    headers_ = std::move(headers);
    has_body_ = status_has_body(status) && !is_head_;
    try {
        reason_.assign(reason);
        if (x_sendfile_ != nullptr) {
            if (auto handoff = take_file_handoff(headers_)) {
                handoff_ = std::make_shared<const file_handoff>(std::move(*handoff));
            }
        }
    } catch (const std::bad_alloc&) {
        fail_out_of_memory();
    }
}

bool php_exchange::write(std::string_view data) noexcept {
    if (is_aborted()) {
        return false;
    }
    if (phase_ == output_phase::finished || handoff_) {
        return true;
    }
    try {
        return write_body(data);
    } catch (const std::bad_alloc&) {
        fail_out_of_memory();
        return false;
    }
}

bool php_exchange::write_body(std::string_view data) {
    std::string bytes;
    if (phase_ < output_phase::committed) {
        pending_.append(data);
        if (pending_.size() < commit_threshold || phase_ == output_phase::awaiting_head) {
            return true;
        }
        choose_coding(std::nullopt);
        bytes = commit(std::nullopt);
        frame_body(pending_, bytes);
        pending_.clear();
    } else {
        frame_body(data, bytes);
    }
    return post_more(std::move(bytes));
}

bool php_exchange::post_more(std::string bytes) {
    return (bytes.empty() && !head_) || post(std::move(bytes), false);
}

bool php_exchange::flush() noexcept {
    if (is_aborted()) {
        return false;
    }
    if (phase_ == output_phase::finished || phase_ == output_phase::awaiting_head || handoff_) {
        return true;
    }
    try {
        return flush_body();
    } catch (const std::bad_alloc&) {
        fail_out_of_memory();
        return false;
    }
}

bool php_exchange::flush_body() {
    std::string bytes;
    if (phase_ < output_phase::committed) {
        choose_coding(std::nullopt);
        bytes = commit(std::nullopt);
    }
    // A flush reaches the client even from inside the compressor (Z_SYNC_FLUSH and the like).
    frame_body(pending_, bytes, encode::encode_step::flush);
    pending_.clear();
    return post_more(std::move(bytes));
}

void php_exchange::finish(bool script_failed) noexcept {
    if (phase_ == output_phase::finished) {
        return;
    }
    try {
        finish_response(script_failed);
    } catch (const std::bad_alloc&) {
        advance(output_phase::finished);
        fail_out_of_memory();
    }
    // Pieces still on their way hold the file; it is gone once the last is written.
    spill_.reset();
}

void php_exchange::finish_response(bool script_failed) {
    if (handoff_ && !script_failed) {
        advance(output_phase::finished);
        response_piece piece;
        piece.handoff = std::move(handoff_);
        piece.last = true;
        // False: the client left meanwhile, and the file is not sent.
        static_cast<void>(send_piece(std::move(piece)));
        return;
    }
    if (handoff_) {
        // The script failed after naming a file: its error, not the file, and never the path.
        handoff_.reset();
        drop_handoff_fields(headers_);
    }
    if (script_failed && phase_ < output_phase::committed && status_ == 200) {
        status_ = 500;
    }
    if (phase_ == output_phase::awaiting_head) {
        // The script ended before PHP produced a head (request start-up failed).
        status_ = 500;
        headers_ = {{"Content-Type", "text/plain; charset=utf-8"}};
        pending_ = "500 Internal Server Error: the PHP request could not start\n";
        has_body_ = !is_head_;
        advance(output_phase::head_set);
        client_keep_alive_ = false;
    }
    std::string bytes;
    if (phase_ < output_phase::committed) {
        // The whole body is known: plain Content-Length framing, one write. (A HEAD response
        // carries the length the GET body would have, compressed as GET's would be.)
        choose_coding(pending_.size());
        if (encoder_) {
            const std::string encoded =
                compress(accept_body(pending_), encode::encode_step::finish);
            bytes = commit(encoded.size());
            if (has_body_) {
                bytes.append(encoded);
            }
        } else {
            bytes = commit(pending_.size());
            frame_body(pending_, bytes);
        }
    } else {
        frame_body(pending_, bytes, encode::encode_step::finish);
    }
    pending_.clear();
    if (encoder_failed_) {
        // No last chunk: the client must see the body as cut short.
        client_keep_alive_ = false;
    } else if (chunked_) {
        bytes.append("0\r\n\r\n");
    } else if (!encoder_ && declared_length_ && has_body_ && body_bytes_ != *declared_length_) {
        // The script declared a length it did not write: the connection cannot be reused.
        client_keep_alive_ = false;
    }
    advance(output_phase::finished);
    // The compressor's state goes back to this thread's block cache for its next response,
    // not to whichever thread drops the exchange.
    encoder_.reset();
    // Direct only while nothing went through the I/O thread: the rest must follow it there.
    const exchange_state current = state();
    if (direct_fd_ >= 0 && client_keep_alive_ &&
        (current == exchange_state::watched || current == exchange_state::unwatched)) {
        std::uint64_t sent = 0;
        if (write_directly(bytes, &sent)) {
            return;
        }
        post(std::move(bytes), true, sent);
        return;
    }
    post(std::move(bytes), true);
}

bool php_exchange::write_directly(std::string& bytes, std::uint64_t* sent) {
    std::chrono::steady_clock::time_point now;
    bool notify = false;
    std::optional<active_response> in_flight;
    {
        std::lock_guard lock(mutex_);
        if (state() == exchange_state::aborted) {
            return true;  // the client is gone: nothing is owed to anyone
        }
        ssize_t n = 0;
        do {
            n = ::send(direct_fd_, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
        } while (n < 0 && errno == EINTR);
        if (n < static_cast<ssize_t>(bytes.size())) {
            // A full socket buffer or an error: the I/O thread writes the rest, or meets the
            // error itself and closes, as for any response.
            if (n > 0) {
                bytes.erase(0, static_cast<std::size_t>(n));
                *sent = static_cast<std::uint64_t>(n);
            }
            return false;
        }
        // Logged and written in the same hold of the mutex as the send. Once the bytes are
        // out, the client may read them and leave, or send its next request, at once: the
        // I/O thread that sees it must find the response written, not abort it (which would
        // count it nowhere and end a script still running after frankenphp_finish_request()
        // as if its client had gone), and must log the next request's line after this one.
        // The sink is the one the I/O thread writes its own responses' lines to, so holding
        // the mutex over it holds that thread up no more than its own lines do.
        if (access_log_site_ != nullptr) {
            log_direct_access(bytes.size());
        }
        notify = state() == exchange_state::unwatched;
        // Watched or unwatched here (aborted returned above, and only this thread relays),
        // so the transition is never refused.
        (void)move_to(exchange_state::written);
        now = std::chrono::steady_clock::now();
        completed_at_ = now;
        in_flight = std::move(in_flight_count_);
        in_flight_count_.reset();
    }
    // This thread owns the completion: what the session's finish_response() does for the
    // responses it writes. The in-flight count ends as `in_flight` goes out of scope.
    context_.metrics.record_response(status_, now - request_clock_);
    if (notify) {
        boost::asio::post(connection_->executor(), [connection = connection_, id = request.id] {
            connection->on_direct_completion(id);
        });
    }
    return true;
}

void php_exchange::log_direct_access(std::uint64_t bytes) const {
    access_entry entry;
    entry.remote_addr = request.remote_addr;
    entry.method = request.method;
    entry.target = request.uri;
    entry.http_version = request.http_version;
    entry.status = status_;
    entry.bytes = bytes;
    entry.duration_ms = milliseconds_since(request.start_time);
    entry.site = *access_log_site_;
    entry.request_id = request.id;
    entry.slot = request.slot;
    log_access(entry);
}

bool php_exchange::is_aborted() const noexcept {
    return state() == exchange_state::aborted ||
           context_.responses_abandoned.load(std::memory_order_acquire);
}

void php_exchange::fail_out_of_memory() noexcept {
    {
        std::lock_guard lock(mutex_);
        if (!move_to(exchange_state::aborted)) {
            return;  // aborted already (the client left), or written: nothing left to fail
        }
    }
    drained_.notify_all();
    // Both may fail again for want of memory; the session then closes the connection at its
    // write or idle timeout instead.
    try {
        spdlog::get("server")->error(
            "[req {}] out of memory while sending the response; closing the connection",
            request.id);
        boost::asio::post(connection_->executor(), [connection = connection_, id = request.id] {
            connection->on_exchange_failed(id);
        });
    } catch (...) {
    }
}

void php_exchange::choose_coding(std::optional<std::uint64_t> known_length) {
    encode::response_facts facts;
    facts.status = status_;
    for (const auto& h : headers_) {
        if (iequals(h.name, "content-length")) {
            std::uint64_t n = 0;
            auto [end, ec] = std::from_chars(h.value.data(), h.value.data() + h.value.size(), n);
            if (ec == std::errc() && end == h.value.data() + h.value.size()) {
                declared_length_ = n;
            }
        } else if (iequals(h.name, "content-type")) {
            facts.content_type = h.value;
        } else if (iequals(h.name, "content-encoding")) {
            facts.content_encoding = h.value;
        } else if (iequals(h.name, "cache-control")) {
            facts.cache_control = h.value;
        } else if (iequals(h.name, "content-range")) {
            facts.has_content_range = true;
        }
    }
    if (encode_ == nullptr || !encode_->is_negotiable(facts)) {
        return;
    }
    is_negotiable_ = true;
    if (declared_length_ && known_length) {
        known_length = std::min(*known_length, *declared_length_);
    }
    if (known_length && *known_length < encode_->minimum_length()) {
        return;
    }
    // Every Accept-Encoding line of the request counts, as one list.
    std::string accept_encoding;
    for (const sapi::header& h : request.headers) {
        if (iequals(h.name, "accept-encoding")) {
            accept_encoding.append(accept_encoding.empty() ? "" : ", ").append(h.value);
        }
    }
    const encode::content_coding coding = encode_->choose(accept_encoding);
    if (coding != encode::content_coding::identity) {
        // Out of memory for the compressor's state: the response goes out uncompressed.
        encoder_ = encode::make_encoder(coding, encode_->level(coding), known_length.value_or(0));
    }
}

std::string php_exchange::commit(std::optional<std::uint64_t> known_length) {
    advance(output_phase::committed);
    if (is_http2_) {
        http2_head head(status_);
        fill_head(head, known_length);
        head_ = std::make_unique<response_head>(head.finish(&header_rules_));
        return {};
    }
    http1_head head(status_, reason_);
    fill_head(head, known_length);
    head.connection(client_keep_alive_, request.http_version);
    return head.finish(&header_rules_);
}

template <class Head>
void php_exchange::fill_head(Head& head, std::optional<std::uint64_t> known_length) {
    // Date is a singleton field (RFC 9110 6.6.1): a Date the script set (Symfony's Response
    // always sets one) is the only one, as Go's net/http does under FrankenPHP.
    const bool has_date = std::any_of(headers_.begin(), headers_.end(),
                                      [](const auto& h) { return iequals(h.name, "date"); });
    if (!has_date) {
        head.date();
    }

    bool has_server = false;
    bool has_vary = false;
    for (const auto& h : headers_) {
        // Framing and connection management are ours; a length the script set is honoured
        // (choose_coding read it), unless the body is compressed.
        if (iequals(h.name, "content-length") || iequals(h.name, "transfer-encoding") ||
            iequals(h.name, "keep-alive")) {
            continue;
        }
        if (encoder_) {
            // Byte ranges of the identity body mean nothing in the compressed one (Caddy drops
            // the field too), and a strong tag no longer names these bytes.
            if (iequals(h.name, "accept-ranges") || iequals(h.name, "content-encoding")) {
                continue;
            }
            if (iequals(h.name, "etag")) {
                head.field(h.name, encode::weak_etag(h.value));
                continue;
            }
        }
        if (is_negotiable_ && iequals(h.name, "vary")) {
            has_vary = has_vary || varies_on_accept_encoding(h.value);
        }
        if (iequals(h.name, "connection")) {
            if (h.value.find("close") != std::string::npos) {
                client_keep_alive_ = false;
            }
            continue;
        }
        if (iequals(h.name, "x-accel-buffering")) {
            // nginx's switch for a FastCGI response, honoured the same way and likewise not
            // passed on: "no" makes the script wait for its client rather than be buffered.
            is_buffered_ = !iequals(h.value, "no");
            continue;
        }
        if (iequals(h.name, "content-type")) {
            // A 304 updates a cache's stored headers, and PHP adds its default type to every
            // response (php-fpm and Go's net/http drop it here too). Elsewhere the name is
            // spelt as everyone spells it, not as PHP's default header has it ("Content-type").
            if (status_ != 304) {
                head.field("Content-Type", h.value);
            }
            continue;
        }
        has_server = has_server || iequals(h.name, "server");
        head.field(h.name, h.value);
    }
    if (!has_server) {
        head.server();
    }
    if (is_negotiable_ && !has_vary) {
        head.field("Vary", "Accept-Encoding");
    }
    if (encoder_) {
        head.field("Content-Encoding", to_string(encoder_->coding()));
    }

    if (status_has_body(status_)) {
        if (declared_length_ && !encoder_) {
            known_length = declared_length_;
        }
        if (known_length) {
            head.content_length(*known_length);
        } else if (is_http2_) {
            // DATA frames carry the body; its end is the stream's.
        } else if (request.http_version >= 11) {
            chunked_ = has_body_;
            head.field("Transfer-Encoding", "chunked");
        } else {
            // HTTP/1.0 without a length: the end of the body is the end of the connection.
            client_keep_alive_ = false;
        }
    }
}

void php_exchange::frame_body(std::string_view data, std::string& out, encode::encode_step step) {
    if (!has_body_ || encoder_failed_) {
        return;
    }
    if (encoder_) {
        frame_wire(compress(accept_body(data), step), out);
        return;
    }
    frame_wire(accept_body(data), out);
}

std::string_view php_exchange::accept_body(std::string_view data) {
    if (declared_length_) {
        // Never send more than the script declared: extra bytes would corrupt the stream.
        std::uint64_t room = *declared_length_ > body_bytes_ ? *declared_length_ - body_bytes_ : 0;
        if (data.size() > room) {
            data = data.substr(0, static_cast<std::size_t>(room));
        }
    }
    body_bytes_ += data.size();
    return data;
}

std::string php_exchange::compress(std::string_view data, encode::encode_step step) {
    std::string encoded;
    if (!encoder_->encode(data, step, encoded)) {
        spdlog::get("server")->error(
            "[req {}] the {} compressor failed (out of memory?); the response is cut short",
            request.id, to_string(encoder_->coding()));
        encoder_failed_ = true;
    }
    return encoded;
}

void php_exchange::frame_wire(std::string_view wire, std::string& out) {
    if (wire.empty()) {
        return;
    }
    if (chunked_) {
        append_hex(out, wire.size());
        out.append("\r\n").append(wire).append("\r\n");
    } else {
        out.append(wire);
    }
}

bool php_exchange::post(std::string bytes, bool last, std::uint64_t sent_directly) {
    const std::size_t total = bytes.size();
    if (total == 0) {
        response_piece piece;
        piece.last = last;
        return send_piece(std::move(piece));
    }
    std::size_t done = 0;
    while (done < total) {
        const placement place_of = place(total - done);
        if (place_of.to == placement::where::gone) {
            return false;
        }
        response_piece piece;
        if (place_of.to == placement::where::file) {
            const std::uint64_t offset = spill_end_;
            if (!spill(std::string_view(bytes).substr(done, place_of.size))) {
                continue;  // the file failed: placed again, in memory this time
            }
            spill_end_ += place_of.size;
            piece.file = spill_;
            piece.file_offset = offset;
            piece.file_length = place_of.size;
        } else if (place_of.size == total) {
            piece.bytes = std::move(bytes);
        } else {
            piece.bytes.assign(bytes, done, place_of.size);
        }
        piece.sent_directly = done == 0 ? sent_directly : 0;
        done += place_of.size;
        piece.last = last && done == total;
        if (!send_piece(std::move(piece))) {
            return false;
        }
    }
    return true;
}

php_exchange::placement php_exchange::place(std::size_t size) {
    const config::http_limits& limits = snapshot_->config.limits;
    std::unique_lock lock(mutex_);
    for (;;) {
        if (is_aborted()) {
            return {};
        }
        const std::size_t room =
            limits.response_memory_size > in_flight_ ? limits.response_memory_size - in_flight_ : 0;
        if (is_buffered_) {
            // Memory first, within this response's share and every connection's total ...
            const std::size_t part = std::min(size, room);
            if (part > 0 && context_.response_memory.try_take(part)) {
                in_flight_ += part;
                return {placement::where::memory, part};
            }
            // ... then the file, within its bound. Once all it held was sent, it starts over.
            if (!spill_failed_) {
                if (spilled_unsent_ == 0) {
                    spill_end_ = 0;
                }
                if (spill_end_ <= limits.max_response_file_size &&
                    size <= limits.max_response_file_size - spill_end_) {
                    spilled_unsent_ += size;
                    return {placement::where::file, size};
                }
            }
        }
        // Unbuffered, or past the file's bound: as much as the client takes, a share at a time,
        // held whatever the total (the thread waits, so this is bounded per PHP thread).
        if (in_flight_ == 0 || in_flight_ < limits.response_memory_size) {
            context_.response_memory.take(size);
            in_flight_ += size;
            return {placement::where::memory, size};
        }
        // Woken by the I/O thread's progress or abort(); the timeout notices a shutdown that
        // abandoned the response (the I/O threads are stopping and wake no one).
        drained_.wait_for(lock, std::chrono::milliseconds(100));
    }
}

bool php_exchange::spill(std::string_view bytes) {
    if (!spill_) {
        spill_ = spill_file::create();
    }
    const std::error_code error = spill_ ? spill_->write_at(spill_end_, bytes)
                                         : std::error_code(errno, std::generic_category());
    if (!error) {
        return true;
    }
    spdlog::get("server")->warn(
        "[req {}] cannot buffer the response in a temporary file ({}): the PHP thread waits for "
        "its client instead; check free space in TMPDIR",
        request.id, error.message());
    std::lock_guard lock(mutex_);
    spill_failed_ = true;
    spilled_unsent_ -= bytes.size();
    return false;
}

bool php_exchange::send_piece(response_piece piece) {
    if (state() != exchange_state::relayed) {
        // The first piece: from here the session completes the response.
        std::lock_guard lock(mutex_);
        if (!move_to(exchange_state::relayed)) {
            return false;  // aborted: the session is gone or closing
        }
    }
    piece.keep_alive = client_keep_alive_;
    piece.status = phase_ >= output_phase::committed ? status_ : 0;
    piece.head = std::move(head_);
    boost::asio::post(connection_->executor(), [connection = connection_, id = request.id,
                                                piece = std::move(piece)]() mutable {
        connection->deliver(id, std::move(piece));
    });
    return true;
}

void php_exchange::advance(output_phase to) noexcept {
    phase_ = std::max(phase_, to);
}

bool php_exchange::move_to(exchange_state to) noexcept {
    exchange_state now = state_.load(std::memory_order_relaxed);
    if (!transition(now, to)) {
        return false;
    }
    state_.store(now, std::memory_order_release);
    return true;
}

void php_exchange::hold(active_response in_flight) noexcept {
    std::lock_guard lock(mutex_);
    in_flight_count_ = std::move(in_flight);
}

std::optional<active_response> php_exchange::take_in_flight() noexcept {
    std::lock_guard lock(mutex_);
    std::optional<active_response> taken = std::move(in_flight_count_);
    in_flight_count_.reset();
    return taken;
}

void php_exchange::allow_direct_write(int fd, std::chrono::steady_clock::time_point request_clock,
                                      const std::string* access_log_site) noexcept {
    direct_fd_ = fd;
    request_clock_ = request_clock;
    access_log_site_ = access_log_site;
}

bool php_exchange::stop_watching() noexcept {
    std::lock_guard lock(mutex_);
    if (move_to(exchange_state::unwatched)) {
        return false;  // a direct write from now on posts a notice
    }
    // Refused: written (done), or relayed or aborted, where no direct write and so no notice
    // can follow.
    return state() == exchange_state::written;
}

std::optional<std::chrono::steady_clock::time_point> php_exchange::direct_completion()
    const noexcept {
    std::lock_guard lock(mutex_);
    if (state() != exchange_state::written) {
        return std::nullopt;
    }
    return completed_at_;
}

void php_exchange::on_written(std::size_t bytes) noexcept {
    {
        std::lock_guard lock(mutex_);
        const std::size_t released = std::min(in_flight_, bytes);
        in_flight_ -= released;
        context_.response_memory.give_back(released);
    }
    drained_.notify_one();
}

void php_exchange::on_file_sent(std::uint64_t bytes) noexcept {
    {
        std::lock_guard lock(mutex_);
        spilled_unsent_ -= std::min(spilled_unsent_, bytes);
    }
    drained_.notify_one();
}

std::optional<active_response> php_exchange::abort() noexcept {
    std::optional<active_response> in_flight;
    {
        std::lock_guard lock(mutex_);
        if (move_to(exchange_state::aborted) || state() == exchange_state::aborted) {
            // The count comes back, unless the session took it already (a relayed response).
            in_flight = std::move(in_flight_count_);
            in_flight_count_.reset();
        }
        // Else written: the PHP thread completed the response and ended its count.
        // What waits in the session's queue is dropped with the connection.
        context_.response_memory.give_back(in_flight_);
        in_flight_ = 0;
    }
    drained_.notify_all();
    return in_flight;
}

}  // namespace spindle::server
