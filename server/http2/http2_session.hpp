#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nghttp2/nghttp2.h>
#include <boost/asio/steady_timer.hpp>

#include "server/http/response_connection.hpp"
#include "server/http/session_stream.hpp"
#include "server/routing/http_context.hpp"
#include "server/static/static_response.hpp"

namespace spindle::server {

class http2_head;
class http2_stream;
class php_exchange;
struct file_handoff;

/// What an HTTP/2 connection knows of its transport, from the HTTP/1.1 session that accepted
/// it (which read the PROXY header and made the TLS handshake).
struct connection_facts {
    config::listen_address address;  ///< where it arrived: the sites listed there answer
    std::string remote_addr;
    std::uint16_t remote_port = 0;
    bool peer_is_unix = false;
    std::string local_addr;
    std::uint16_t local_port = 0;
    std::string_view tls_protocol;  ///< OpenSSL's static names; empty over plain TCP (h2c)
    std::string_view tls_cipher;
};

/// One HTTP/2 connection (RFC 9113), framed by nghttp2: ALPN "h2" on a TLS listener, or a
/// plain connection that opened with the HTTP/2 preface where h2c is on. Each stream is a
/// request, answered as over HTTP/1.1 (request_decision: respond rules, redirects, static
/// files, PHP), many at once.
///
/// Threads: every member runs on the connection's I/O thread (the executor of the stream it
/// took over). PHP threads reach it only through the response_connection notices, posted
/// there by each stream's php_exchange; there is no direct write on HTTP/2.
///
/// Bounds, as the abuse list asks (each is a test in test_http2.py):
/// - at most max_streams open streams (SETTINGS_MAX_CONCURRENT_STREAMS); a stream the client
///   reset whose PHP still runs keeps counting, so rapid resets (CVE-2023-44487) cannot keep
///   more PHP requests busy than that; nghttp2 itself limits the reset rate, CONTINUATION
///   frames, SETTINGS entries and unanswered PING/SETTINGS acks (flood: the connection ends);
/// - a header list over max_header_size (HPACK decodes into it, so a small HPACK bomb is a
///   large list) answers 431 without keeping the fields;
/// - a response waits for a reader that opens no window in the exchange's buffers (memory,
///   then spill file, then the PHP thread waits), as over HTTP/1.1;
/// - request bodies go to a body_store (memory, then a file), max_body_size at most.
class http2_session final : public response_connection,
                            public std::enable_shared_from_this<http2_session> {
  public:
    /// Open streams at once (SETTINGS_MAX_CONCURRENT_STREAMS), nginx's default.
    static constexpr std::uint32_t max_streams = 128;

    /// Takes over `stream`, which `owner` keeps alive; `received`: bytes read already (the
    /// preface, or what followed the TLS handshake).
    http2_session(std::shared_ptr<void> owner, session_stream& stream, http_context& context,
                  connection_facts facts, std::string received);
    ~http2_session();
    http2_session(const http2_session&) = delete;
    http2_session& operator=(const http2_session&) = delete;

    /// Sends the server's SETTINGS, takes the bytes received so far and starts reading.
    void start();

    boost::asio::any_io_executor executor() override { return stream_.get_executor(); }
    void deliver(std::uint64_t request_id, response_piece piece) override;
    /// HTTP/2 never lets a PHP thread write to the socket, so this notice never comes.
    void on_direct_completion(std::uint64_t request_id) override;
    void on_exchange_failed(std::uint64_t request_id) override;

  private:
    // nghttp2's callbacks (static, `user_data` is this), inside mem_recv and mem_send.
    static int on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* self);
    static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                         std::size_t name_length, const std::uint8_t* value,
                         std::size_t value_length, std::uint8_t flags, void* self);
    static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* self);
    static ssize_t read_data(nghttp2_session*, std::int32_t stream_id, std::uint8_t* buffer,
                             std::size_t length, std::uint32_t* data_flags,
                             nghttp2_data_source* source, void* self);
    static int on_data_chunk(nghttp2_session*, std::uint8_t flags, std::int32_t stream_id,
                             const std::uint8_t* data, std::size_t length, void* self);
    static int on_stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t error_code,
                               void* self);

    /// Feeds received bytes to nghttp2; false when the connection must end.
    bool receive(const std::uint8_t* data, std::size_t size);
    void do_read();
    /// Writes what nghttp2 has to send, one write at a time; closes when both sides are done.
    void do_write();
    /// Closes the connection after the idle timeout, unless a stream starts meanwhile.
    void arm_idle_timer();
    /// Sends GOAWAY: no new streams; the connection closes once the open ones are answered.
    void start_draining();
    void close();

    /// A stream's request is complete: route it and answer.
    void handle_request(http2_stream& stream);
    /// `router` resolved the request (DOCUMENT_ROOT).
    void dispatch_php(http2_stream& stream, route& r, const router_options& router);
    void on_queue_timeout(std::int32_t stream_id, std::uint64_t request_id);
    /// Serves the open file `fd` as a static file on `stream` (fstat'ed as `st`).
    void serve_file(http2_stream& stream, int fd, const struct stat& st, const std::string& name,
                    std::string_view content_type, std::vector<head_field> extra);
    void serve_handoff(http2_stream& stream, const file_handoff& handoff);
    /// Spindle's short answer: the status, and the reason as a text body.
    void answer(http2_stream& stream, int status, std::string_view reason,
                std::vector<head_field> extra = {});
    void answer_fixed(http2_stream& stream, const config::respond_rule& rule);
    /// Submits a final head; `has_body`: DATA frames follow (from the stream's chunks).
    void submit_head(http2_stream& stream, const response_head& head, bool has_body);
    /// The stream's head with Date, Server and the site's header rules.
    response_head finish_head(http2_stream& stream, http2_head& head) const;
    void log_access(const http2_stream& stream, std::string_view outcome) const;
    /// Whether another stream may start: open streams plus reset streams whose PHP still
    /// runs stay under max_streams.
    bool has_room();

    std::shared_ptr<void> owner_;
    session_stream& stream_;
    http_context& context_;
    const connection_facts facts_;
    std::string received_;
    nghttp2_session* session_ = nullptr;
    std::unordered_map<std::int32_t, std::unique_ptr<http2_stream>> streams_;
    std::unordered_map<std::uint64_t, http2_stream*> by_request_;
    /// Exchanges of streams closed while PHP ran them: alive until their PHP thread lets go.
    std::vector<std::weak_ptr<php_exchange>> orphans_;
    std::vector<std::uint8_t> read_buffer_;
    std::string write_buffer_;
    /// Where the connection stands; it only moves forward.
    enum class connection_phase {
        open,      ///< streams may start
        draining,  ///< GOAWAY sent (graceful stop or idle): open streams finish, no new ones
        failing,   ///< a connection error (a flood, a protocol violation): GOAWAY, then close
        closed,    ///< the socket is closed
    };
    /// Moves phase_ forward to `to`, never back: the one way it changes.
    void advance(connection_phase to) noexcept;
    connection_phase phase_ = connection_phase::open;
    bool writing_ = false;  ///< a write is in progress (one at a time)
    boost::asio::steady_timer idle_timer_;
};

}  // namespace spindle::server
