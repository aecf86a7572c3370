#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sys/stat.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>

#include "server/http/active_response.hpp"
#include "server/http/proxy_header.hpp"
#include "server/http/response_connection.hpp"
#include "server/http/session_stream.hpp"
#include "server/routing/http_context.hpp"
#include "server/routing/router.hpp"
#include "server/routing/server_snapshot.hpp"

namespace spindle::server {

class body_store;
class php_exchange;
class spill_file;
class tls_certificates;
struct file_handoff;

/// One client connection, HTTP/1.1 and 1.0. Every member function runs on the connection's
/// I/O thread (the io_context of stream_'s executor, run by that thread alone); PHP threads
/// reach it only through deliver(), on_direct_completion() and on_exchange_failed(), posted
/// there, and through the direct write of php_exchange.
///
/// The protocol as a state machine:
///   [proxy_protocol: read_proxy_header; the peer's address becomes the header's source]
///   [TLS listener: detect_tls -> handshake, or a plain request answered 308/400 and closed]
///   wait_request (keep-alive idle) -> read_header -> [100 Continue] -> read_body
///   -> respond: error | redirect | static file (written here) | PHP (dispatched to a slot,
///      output delivered back in order) -> next request, or close.
/// Requests are answered one at a time; pipelined requests wait in the read buffer, so
/// responses come back in order. A request counts as in flight (http_context's
/// active_responses, which the graceful stop waits for) from its complete header to the end
/// of its response, the linger of a closing connection included: an active_response guard in
/// in_flight_, or in the exchange while PHP runs (php_exchange::hold()).
///
/// Writing: each write may wait for the client at most write_timeout without progress, and
/// while a response waits for the client it must take at least min_write_rate bytes/s over
/// each write_timeout window (as Apache's mod_reqtimeout MinRate for request bodies), or it
/// is closed, logged "too slow" and counted; a client that reads whatever is written is never
/// judged, however slowly PHP produces the response.
class http_session final : public response_connection,
                           public std::enable_shared_from_this<http_session> {
  public:
    /// `address` is where the connection arrived: each request answers with the sites the
    /// configuration current when it starts lists there. `tls`: the listener's certificates
    /// when it speaks HTTPS, else null.
    http_session(boost::asio::ip::tcp::socket&& socket, http_context& context,
                 config::listen_address address, std::shared_ptr<const tls_certificates> tls);
    ~http_session();

    /// Starts reading the first request.
    void start();

    /// A piece of the response to request `request_id`, in order; dropped when that request
    /// is no longer the one being answered (the connection closed, or a late piece). Posted by
    /// the PHP thread's exchange.
    void deliver(std::uint64_t request_id, response_piece piece) override;
    /// The PHP thread wrote request `request_id`'s whole response itself while the session was
    /// not watching the socket. Posted by that thread.
    void on_direct_completion(std::uint64_t request_id) override;
    /// The PHP thread could not complete request `request_id`'s response (out of memory):
    /// the connection closes. Posted by that thread.
    void on_exchange_failed(std::uint64_t request_id) override;

    /// The executor every member runs on: the connection's I/O thread.
    boost::asio::any_io_executor executor() override { return stream_.get_executor(); }

  private:
    using parser_type = boost::beast::http::request_parser<boost::beast::http::buffer_body>;

    struct outgoing {
        /// The bytes to write; for a file piece, the chunk of the file being written.
        std::string bytes;
        std::shared_ptr<spill_file> file;  ///< set: a piece of a PHP response's spill file
        std::uint64_t file_offset = 0;     ///< where the next chunk of it is read
        std::uint64_t file_left = 0;       ///< bytes of it not read yet
        bool is_php_memory = false;        ///< acknowledge its bytes to the exchange once written
        bool last = false;                 ///< ends the response
        bool keep_alive = false;           ///< with last: continue with the next request
    };

    /// The PROXY header at the start of the connection (proxy_protocol).
    void do_read_proxy_header();
    void on_read_proxy_header(boost::beast::error_code ec, std::size_t bytes);
    /// After the PROXY header, or at once without proxy_protocol: TLS or the first request.
    void start_protocol();
    void do_detect_tls();
    void on_detect_tls(boost::beast::error_code ec, bool is_tls);
    void on_handshake(boost::beast::error_code ec, std::size_t used);
    /// Hands the connection to an http2_session (ALPN h2, or the h2c preface); this session
    /// only keeps the socket alive from then on.
    void start_http2();
    /// The bytes read so far open an h2c connection and h2c is on.
    bool opens_http2() const;
    /// Keep-alive: waits for the next request; `readable`: the socket was just seen readable.
    void do_wait_request(bool readable = false);
    void on_wait_request(boost::beast::error_code ec, std::size_t bytes);
    void do_read_header();
    void on_read_header(boost::beast::error_code ec, std::size_t bytes);
    void on_continue_sent(boost::beast::error_code ec, std::size_t bytes);
    void do_read_body();
    void on_read_body(boost::beast::error_code ec, std::size_t bytes);

    /// Checks what the header block alone can tell; false if an error response was sent.
    bool validate_header();
    /// After a refused version: whether the request line ends in a well-formed "HTTP/d.d".
    bool names_http_version() const;
    void handle_request();
    /// Reads what a trusted proxy says about the client into forwarded_; clears it when the
    /// peer is not one (its forwarding headers then change nothing).
    void read_forwarding_headers();
    /// The client of the current request: the peer, or the address a trusted proxy names.
    const std::string& client_addr() const noexcept {
        return forwarded_.address ? *forwarded_.address : remote_addr_;
    }
    std::uint16_t client_port() const noexcept {
        return forwarded_.address ? forwarded_.port : remote_port_;
    }
    void serve_static(const route& r);
    /// Answers with the file a PHP response handed off (X-Sendfile), or 403/404.
    void serve_handoff(const file_handoff& handoff);
    /// Sends the open regular file `fd` (closed here; `st` its fstat) as a static file:
    /// 304, Range, compression. `name` is its path; `content_type` empty: by `name`'s
    /// extension; `extra_headers`: header lines to add ("Name: value\r\n" each).
    void serve_file(int fd, const struct stat& st, const std::string& name,
                    std::string_view content_type, std::string_view extra_headers);
    /// A `respond` rule's fixed answer.
    void respond_fixed(const config::respond_rule& rule);
    /// 308 to the same host and target over https, on `port` (443 is left out).
    void redirect_to_https(std::uint16_t port, bool keep_alive);
    /// Hands the request to a PHP slot; the route's strings move into the request.
    void dispatch_php(route& r);
    /// The queue deadline of request `request_id`.
    void on_queue_timeout(boost::beast::error_code ec, std::uint64_t request_id);
    /// Watches the socket while PHP runs; `direct`: the PHP thread may write the response
    /// itself, so also keep the keep-alive idle timeout.
    void watch_for_disconnect(bool direct);
    void on_disconnect_watch(boost::beast::error_code ec, std::uint64_t generation);
    /// Arms the wait for the socket to become readable again while PHP runs.
    void arm_disconnect_watch();
    /// Starts the keep-alive idle deadline of directly written responses, due in `wait`.
    void arm_idle_timer(std::chrono::steady_clock::duration wait);
    /// The idle deadline: closes a connection idle since its directly written response for
    /// the idle timeout, else looks again later.
    void on_direct_idle(boost::beast::error_code ec);
    /// The PHP thread wrote the whole response itself: on to the next request; `readable`:
    /// the socket was just seen readable.
    void finish_direct_response(bool readable);
    /// Fails the PHP side and lets the exchange go, taking back the in-flight count it held.
    void drop_exchange();
    /// Counts the current request as in flight from now on, if it is not yet.
    void start_in_flight();

    /// A complete short response (errors, redirects, 304), then keep-alive or close.
    void respond(int status, std::string_view body, bool keep_alive,
                 std::string_view extra_headers = {});
    void queue(outgoing item);
    void do_write();
    void on_write(boost::beast::error_code ec, std::size_t bytes);
    /// Reads the next chunk of the front piece's spill file into its bytes; false when the
    /// file cannot be read (the response is then cut short).
    bool load_file_chunk(outgoing& item);
    /// Starts the min_write_rate check when a write starts waiting for the client.
    void arm_rate_check();
    void on_rate_check(boost::beast::error_code ec);
    void pump_file();
    /// pump_file over TLS: sendfile cannot encrypt, so read a chunk and write it through TLS.
    void pump_file_tls();
    void finish_response(bool keep_alive);
    /// One access-log line for the current request, when its site has `log` on.
    void log_access(std::string_view outcome);
    void do_close();
    void do_linger();
    void do_linger_read();

    session_stream stream_;
    http_context& context_;
    /// Kept for the connection's life: its SSL contexts and SNI callback live in it.
    const std::shared_ptr<const tls_certificates> tls_;
    bool plain_on_tls_port_ = false;  ///< a plain HTTP request arrived on a TLS listener
    std::string_view tls_protocol_;   ///< after the handshake: OpenSSL's static names
    std::string_view tls_cipher_;
    const config::listen_address address_;
    /// The configuration of the current request (taken as its header is read), or of the
    /// connection before its first request; site_ and router_ point into it.
    std::shared_ptr<const server_snapshot> snapshot_;
    const config::http_limits& limits() const noexcept { return snapshot_->config.limits; }
    const site_context* site_ = nullptr;  ///< the site answering the current request
    /// The site's root or the path root that resolves the current request (DOCUMENT_ROOT).
    const router_options* router_ = nullptr;
    boost::beast::flat_buffer buffer_;
    std::optional<parser_type> parser_;
    std::unique_ptr<body_store> body_;
    std::array<char, 16 * 1024> body_chunk_;
    std::string remote_addr_;  ///< the peer ("127.0.0.1" for a Unix-socket peer)
    std::uint16_t remote_port_ = 0;
    bool peer_is_unix_ = false;
    /// With proxy_protocol, until the header is read; then reset.
    std::optional<proxy_header_parser> proxy_parser_;
    proxy_policy proxy_policy_ = proxy_policy::skip;
    /// What a trusted proxy said about the current request's client; empty otherwise.
    forwarded_client forwarded_;
    std::string local_addr_;
    std::uint16_t local_port_ = 0;

    // The request being answered.
    std::uint64_t request_id_ = 0;
    double request_start_ = 0;                             ///< wall clock, for PHP
    std::chrono::steady_clock::time_point request_clock_;  ///< for the duration metric
    std::string target_path_;   ///< raw (still encoded) path of the request-target
    std::string target_query_;  ///< raw query without '?'
    bool keep_alive_ = false;   ///< what the client asked for
    /// Counts the request in context_.active_responses; empty between requests, and while the
    /// exchange holds the count.
    std::optional<active_response> in_flight_;
    int response_status_ = 0;           ///< the final status written, for the access log
    std::uint64_t response_bytes_ = 0;  ///< bytes written for the current response

    // PHP dispatch.
    std::shared_ptr<php_exchange> exchange_;
    /// The PHP queue deadline, or a static file's wait for a writable socket.
    boost::asio::steady_timer queue_timer_;
    std::uint64_t queue_ticket_ = 0;
    std::size_t queue_group_ = 0;  ///< pool group the request went to
    std::uint64_t watch_generation_ = 0;
    /// Keep-alive idle timeout after a response the PHP thread wrote itself.
    boost::asio::steady_timer idle_timer_;
    bool idle_timer_armed_ = false;  ///< idle_timer_ has a wait pending
    bool watching_direct_ = false;   ///< the current watch is of a direct-write exchange

    // Static file streaming.
    int file_fd_ = -1;
    std::uint64_t file_offset_ = 0;
    std::uint64_t file_remaining_ = 0;
    std::vector<char> file_chunk_;  ///< TLS only: the chunk being written

    // Writing.
    std::deque<outgoing> out_;
    std::size_t out_written_ = 0;  ///< bytes of out_.front().bytes already written
    /// The connection: open (no write of out_ in flight), writing (one is), or closed
    /// (do_close() ran: final; late completions find it so and change nothing). Changed only
    /// by move_to().
    enum class connection_state { open, writing, closed };
    connection_state state_ = connection_state::open;
    void move_to(connection_state next);
    bool is_closed() const noexcept { return state_ == connection_state::closed; }
    /// min_write_rate: a check every write_timeout while writes wait for the client.
    boost::asio::steady_timer rate_timer_;
    bool rate_timer_armed_ = false;
    std::uint64_t rate_bytes_ = 0;                         ///< written since the last check
    std::chrono::steady_clock::duration rate_busy_{0};     ///< time writes waited since then
    std::chrono::steady_clock::time_point write_started_;  ///< of the write in progress
};

}  // namespace spindle::server
