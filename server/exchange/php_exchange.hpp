#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/server_config.hpp"
#include "encode/content_encoder.hpp"
#include "encode/encode_policy.hpp"
#include "sapi/request.hpp"
#include "server/exchange/exchange_state.hpp"
#include "server/http/active_response.hpp"
#include "server/http/body_store.hpp"
#include "server/http/response_connection.hpp"
#include "server/http/spill_file.hpp"
#include "server/http/x_sendfile.hpp"
#include "server/routing/server_snapshot.hpp"

namespace spindle::server {

struct http_context;

/// One PHP request in flight: the request as plain data, its body, and the response framing.
///
/// The PHP slot thread calls the output_sink methods; they turn PHP's output into HTTP/1.1
/// bytes (Content-Length when the whole body is known at the end, chunked once the script
/// flushes or outgrows the buffer) and post them to the connection's I/O thread.
///
/// Buffering, as nginx buffers a FastCGI response: a client that takes the response slower than
/// PHP produces it must not hold the PHP thread. Up to `response_memory_size` bytes per
/// response wait in memory (while every connection together stays within
/// `response_memory_total`), the rest in a temporary file (spill_file) of at most
/// `max_response_file_size` waiting bytes; the thread finishes its script meanwhile. Only
/// past those bounds, or for a response whose script sent `X-Accel-Buffering: no` (nginx's
/// switch, not passed on to the client), does write() block until the client catches up.
/// Every piece is posted as soon as it is produced, so flush() still reaches a client that
/// reads and a long event stream still streams. The I/O thread reports progress with
/// on_written() / on_file_sent() and a lost client with abort().
///
/// With the site's `encode` on, the body is compressed here, on the PHP thread (CPU work kept
/// off the I/O threads): the coding is chosen once, when the head is committed, from the
/// status, the headers the script set and the client's Accept-Encoding; a flush() flushes the
/// compressor too, so streamed output still arrives as it is produced.
///
/// Direct write: a response that is complete when the script ends (the usual small page) is
/// sent by the PHP thread itself, with one non-blocking send() on the plain TCP socket, when
/// the session allowed it. That saves the hop back to the I/O thread, which is woken only by
/// the client's next request, as it would be anyway. The session learns of it from
/// stop_watching() or, if it was no longer watching the socket, from a posted notice. The
/// socket stays valid meanwhile: the session calls abort(), under the same mutex, before it
/// closes it, and no timed Beast operation (whose expiry closes the socket) runs on it while
/// the session only watches.
///
/// Completion has one owner, decided by the exchange_state machine (exchange_state.hpp): the
/// PHP thread when it wrote the whole response itself (it then records the metric, writes the
/// access-log line and ends the in-flight count it was holding), the session in every other
/// case. While PHP runs the exchange holds the request's in-flight count (hold()); the session
/// takes it back with take_in_flight() or abort() when it becomes the owner.
///
/// X-Sendfile / X-Accel-Redirect (the site's `x_sendfile`): a head that names a file is not
/// sent; the body the script writes is discarded, and when the script ends the file is handed
/// to the session in one last piece, which serves it as a static file. The PHP thread is free
/// then, however long the download takes.
///
/// Notices to the session carry the request's id (unique in the process), so a late one for
/// an earlier request on the same connection is recognised and dropped.
class php_exchange final : public sapi::output_sink {
  public:
    /// Buffered body bytes before the response is committed to chunked streaming.
    static constexpr std::size_t commit_threshold = 64 * 1024;

    /// `header_rules` are the site's `header` rules, applied to the response head; `encode` is
    /// the site's compression policy (nullptr: off); `x_sendfile` its hand-off directories
    /// (nullptr: off); all of them live in `snapshot`, the configuration the request started
    /// with, which the exchange keeps. `context` outlives the exchange.
    php_exchange(std::shared_ptr<response_connection> connection, http_context& context,
                 std::shared_ptr<const server_snapshot> snapshot, bool is_head,
                 bool client_keep_alive, const std::vector<config::header_rule>& header_rules,
                 const encode::encode_policy* encode, const config::x_sendfile_config* x_sendfile);
    ~php_exchange() override;

    sapi::request request;             ///< filled by the session before dispatch, then owned by PHP
    std::unique_ptr<body_store> body;  ///< received by the session, read by PHP

    // output_sink: PHP slot thread.
    void send_informational(int status, const std::vector<sapi::header>& headers) noexcept override;
    void send_head(int status, std::string_view reason,
                   std::vector<sapi::header> headers) noexcept override;
    bool write(std::string_view data) noexcept override;
    bool flush() noexcept override;
    void finish(bool script_failed) noexcept override;
    /// The client is gone, or the server abandoned the response (the end of a stop).
    bool is_aborted() const noexcept override;

    /// The response goes out over HTTP/2: heads travel as fields (response_piece::head), the
    /// body unframed (DATA frames frame it), nothing chunked nor connection-specific (I/O
    /// thread, before dispatch).
    void use_http2() noexcept { is_http2_ = true; }

    /// Keeps the request's in-flight count while PHP runs (I/O thread, before dispatch).
    void hold(active_response in_flight) noexcept;
    /// The in-flight count back, unless the PHP thread completed the response itself and ended
    /// it (I/O thread: the session completes a relayed response).
    std::optional<active_response> take_in_flight() noexcept;

    /// Lets the PHP thread send a complete response itself on the plain TCP socket `fd`, then
    /// count it as the session would and, when `access_log_site` is not null, write its
    /// access-log line under that site's name (I/O thread, before dispatch).
    void allow_direct_write(int fd, std::chrono::steady_clock::time_point request_clock,
                            const std::string* access_log_site) noexcept;
    /// The socket became readable or the idle check ran: true if the PHP thread has already
    /// written the whole response itself; else it will post a notice when it does (I/O
    /// thread).
    bool stop_watching() noexcept;
    /// When the PHP thread finished writing the whole response itself, if it did (I/O thread).
    std::optional<std::chrono::steady_clock::time_point> direct_completion() const noexcept;

    /// `bytes` of what this exchange posted in memory were written to the socket (I/O thread).
    void on_written(std::size_t bytes) noexcept;
    /// `bytes` of what this exchange posted in its spill file were written (I/O thread).
    void on_file_sent(std::uint64_t bytes) noexcept;
    /// The client is gone: wake and fail the PHP side, release the memory the response held
    /// (I/O thread). Returns the in-flight count for the session to end, empty when the PHP
    /// thread had already written the whole response itself (and ended the count).
    std::optional<active_response> abort() noexcept;

    /// Where the response stands between the two threads (any thread; tests and logs).
    exchange_state state() const noexcept { return state_.load(std::memory_order_acquire); }

  private:
    /// Where the next piece of a post goes.
    struct placement {
        enum class where { gone, memory, file } to = where::gone;
        std::size_t size = 0;
    };

    // The output_sink methods' work; they may throw std::bad_alloc, which the noexcept
    // methods turn into fail_out_of_memory().
    void send_interim(int status, const std::vector<sapi::header>& headers);
    bool write_body(std::string_view data);
    bool flush_body();
    void finish_response(bool script_failed);

    /// Reads the head the script set (its Content-Length, what compression needs) and chooses
    /// the coding; once, just before commit. `known_length`: the whole body's size, if known.
    void choose_coding(std::optional<std::uint64_t> known_length);
    /// Fixes the framing and returns the serialized status line and headers; `known_length`
    /// (the whole body's size) selects Content-Length framing, else chunked. Over HTTP/2 the
    /// head waits in head_ for the next piece instead, and the bytes are empty.
    std::string commit(std::optional<std::uint64_t> known_length);
    /// Fills a head builder (http1_head or http2_head) from the script's status and headers.
    template <class Head>
    void fill_head(Head& head, std::optional<std::uint64_t> known_length);
    /// Posts body bytes that are not the end, unless there is nothing to post (no bytes and
    /// no head waiting).
    bool post_more(std::string bytes);
    /// Appends body bytes to `out` in the committed framing, compressed when a coding was
    /// chosen (`step` then says whether to flush or end the compressed stream).
    void frame_body(std::string_view data, std::string& out,
                    encode::encode_step step = encode::encode_step::process);
    /// Counts body bytes, cutting them at a length the script declared itself.
    std::string_view accept_body(std::string_view data);
    /// Compresses accepted body bytes; on a compressor failure the response is cut short.
    std::string compress(std::string_view data, encode::encode_step step);
    /// Appends bytes as they go on the wire: one chunk, or as they are.
    void frame_wire(std::string_view wire, std::string& out);
    /// Hands bytes to the I/O thread, in memory or through the spill file, blocking only when
    /// neither may take them (see the class comment). `sent_directly`: bytes of the response
    /// the PHP thread already sent itself. False once the client is gone.
    bool post(std::string bytes, bool last, std::uint64_t sent_directly = 0);
    /// Decides, under mutex_, where the first `size` bytes of the rest of a post go, and counts
    /// them there; waits while neither memory nor the file may take any.
    placement place(std::size_t size);
    /// Writes a piece to the spill file; false (counted back) when the file cannot take it.
    bool spill(std::string_view bytes);
    /// Posts one piece to the session's I/O thread; false (nothing posted) once the response
    /// was aborted.
    bool send_piece(response_piece piece);
    /// Moves state_ to `to` through transition(); the caller holds mutex_.
    [[nodiscard]] bool move_to(exchange_state to) noexcept;
    /// Out of memory on the PHP thread: the response cannot be completed; the script is told
    /// the client is gone and the session closes the connection.
    void fail_out_of_memory() noexcept;
    /// Tries to send the complete response in `bytes` on the socket now; true if it all went.
    /// On a partial send, `bytes` keeps what is left for the I/O thread and `*sent` says how
    /// much went.
    bool write_directly(std::string& bytes, std::uint64_t* sent);
    /// The access-log line of a response of `bytes` bytes this thread wrote itself.
    void log_direct_access(std::uint64_t bytes) const;

    std::shared_ptr<response_connection> connection_;
    http_context& context_;
    const std::shared_ptr<const server_snapshot> snapshot_;  ///< the request's configuration
    const bool is_head_;
    const std::vector<config::header_rule>& header_rules_;
    const encode::encode_policy* encode_;
    const config::x_sendfile_config* x_sendfile_;

    // PHP thread only.
    /// How far the PHP thread's output got; it only moves forward (advance()).
    enum class output_phase {
        awaiting_head,  ///< nothing yet: body bytes wait in pending_ for the head
        head_set,       ///< the script's status and headers are in; the body may still buffer
        committed,      ///< the head is framed (Content-Length or chunked) and on its way
        finished,       ///< the response is complete; later output is dropped
    };
    /// Moves phase_ forward to `to`; never back (PHP thread).
    void advance(output_phase to) noexcept;
    output_phase phase_ = output_phase::awaiting_head;
    bool client_keep_alive_;
    bool is_http2_ = false;  ///< set before dispatch (use_http2())
    /// HTTP/2: the head committed, on its way with the next piece.
    std::unique_ptr<response_head> head_;
    bool chunked_ = false;
    bool has_body_ = true;  ///< false for 204/304/HEAD: bytes are counted, not sent
    int status_ = 200;
    std::string reason_;
    std::vector<sapi::header> headers_;
    std::optional<std::uint64_t> declared_length_;  ///< Content-Length the script set itself
    std::uint64_t body_bytes_ = 0;                  ///< body bytes accepted after commit
    std::string pending_;                           ///< body bytes not yet posted
    /// The head named a file (x_sendfile on): the body is discarded, the file goes instead.
    std::shared_ptr<const file_handoff> handoff_;
    bool is_negotiable_ = false;  ///< the coding depended on Accept-Encoding: send Vary
    std::unique_ptr<encode::content_encoder> encoder_;  ///< the chosen coding; null: identity
    bool encoder_failed_ = false;  ///< the compressor failed: the body ends where it stopped
    /// The response may wait in memory and on disk for the client (no `X-Accel-Buffering: no`).
    bool is_buffered_ = true;
    std::shared_ptr<spill_file> spill_;  ///< created at the first spill
    bool spill_failed_ = false;          ///< the file could not be created or written: no more
    std::uint64_t spill_end_ = 0;        ///< where the next spilled byte goes

    // Set by allow_direct_write() before dispatch, then read by the PHP thread.
    int direct_fd_ = -1;  ///< -1: every byte goes through the I/O thread
    std::chrono::steady_clock::time_point request_clock_;
    const std::string* access_log_site_ = nullptr;  ///< the site's name when it logs access

    // Shared between the PHP thread and the I/O thread.
    mutable std::mutex mutex_;
    std::condition_variable drained_;
    std::size_t in_flight_ = 0;         ///< mutex_: memory bytes posted, not yet written
    std::uint64_t spilled_unsent_ = 0;  ///< mutex_: file bytes posted, not yet written
    /// Written under mutex_ (through move_to()), read without it.
    std::atomic<exchange_state> state_{exchange_state::watched};
    /// mutex_: the request's in-flight count while PHP runs (hold()); empty once either side
    /// took it to complete the response.
    std::optional<active_response> in_flight_count_;
    /// mutex_: when the PHP thread wrote the whole response itself (state_ written).
    std::chrono::steady_clock::time_point completed_at_;
};

}  // namespace spindle::server
