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
#include "server/body_store.hpp"

namespace spindle::server {

class http_session;
struct http_context;

/// One PHP request in flight: the request as plain data, its body, and the response framing.
///
/// The PHP slot thread calls the output_sink methods; they turn PHP's output into HTTP/1.1
/// bytes (Content-Length when the whole body is known at the end, chunked once the script
/// flushes or outgrows the buffer) and post them to the connection's I/O thread. At most
/// `max_in_flight` bytes wait there at once: a slow client makes the script block in write(),
/// so a large response is never held whole in memory. The I/O thread reports progress with
/// on_written() and a lost client with abort().
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
/// closes it.
class php_exchange final : public sapi::output_sink {
  public:
    /// Buffered body bytes before the response is committed to chunked streaming.
    static constexpr std::size_t commit_threshold = 64 * 1024;
    /// Bytes posted to the I/O thread but not yet written, before write() blocks.
    static constexpr std::size_t max_in_flight = 256 * 1024;

    /// `header_rules` are the site's `header` rules, applied to the response head; `encode` is
    /// the site's compression policy (nullptr: off).
    php_exchange(std::shared_ptr<http_session> session, bool is_head, bool client_keep_alive,
                 const std::vector<config::header_rule>& header_rules,
                 const encode::encode_policy* encode);
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
    bool is_aborted() const noexcept override;

    /// Lets the PHP thread send a complete response itself on the plain TCP socket `fd`, then
    /// count it in `context` as the session would and, when `access_log_site` is not null,
    /// write its access-log line under that site's name (I/O thread, before dispatch).
    void allow_direct_write(int fd, http_context& context,
                            std::chrono::steady_clock::time_point request_clock,
                            const std::string* access_log_site) noexcept;
    /// The socket became readable or the idle check ran: true if the PHP thread has already
    /// written the whole response itself; else it will post a notice when it does (I/O
    /// thread).
    bool stop_watching() noexcept;
    /// When the PHP thread finished writing the whole response itself, if it did (I/O thread).
    std::optional<std::chrono::steady_clock::time_point> direct_completion() const noexcept;

    /// `bytes` of what this exchange posted were written to the socket (I/O thread).
    void on_written(std::size_t bytes) noexcept;
    /// The client is gone: wake and fail the PHP side (I/O thread). Returns true if the PHP
    /// thread had already written the whole response itself (and counted it).
    bool abort() noexcept;

  private:
    /// Reads the head the script set (its Content-Length, what compression needs) and chooses
    /// the coding; once, just before commit. `known_length`: the whole body's size, if known.
    void choose_coding(std::optional<std::uint64_t> known_length);
    /// Fixes the framing and returns the serialized status line and headers; `known_length`
    /// (the whole body's size) selects Content-Length framing, else chunked.
    std::string commit(std::optional<std::uint64_t> known_length);
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
    /// Hands bytes to the I/O thread, blocking first while too much is in flight. `status`, when
    /// not 0, is the final status of a response whose head was already sent directly.
    bool post(std::string bytes, bool last, int status = 0);
    /// Tries to send the complete response in `bytes` on the socket now; true if it all went.
    /// On a partial send, `bytes` keeps what is left for the I/O thread.
    bool write_directly(std::string& bytes);
    /// The access-log line of a response of `bytes` bytes this thread wrote itself.
    void log_direct_access(std::uint64_t bytes) const;

    std::shared_ptr<http_session> session_;
    const bool is_head_;
    const std::vector<config::header_rule>& header_rules_;
    const encode::encode_policy* encode_;

    // PHP thread only.
    bool client_keep_alive_;
    bool head_received_ = false;
    bool committed_ = false;
    bool finished_ = false;
    bool chunked_ = false;
    bool has_body_ = true;  ///< false for 204/304/HEAD: bytes are counted, not sent
    int status_ = 200;
    std::string reason_;
    std::vector<sapi::header> headers_;
    std::optional<std::uint64_t> declared_length_;  ///< Content-Length the script set itself
    std::uint64_t body_bytes_ = 0;                  ///< body bytes accepted after commit
    std::string pending_;                           ///< body bytes not yet posted
    bool is_negotiable_ = false;  ///< the coding depended on Accept-Encoding: send Vary
    std::unique_ptr<encode::content_encoder> encoder_;  ///< the chosen coding; null: identity
    bool encoder_failed_ = false;  ///< the compressor failed: the body ends where it stopped
    bool posted_ = false;          ///< bytes went to the I/O thread: it writes the rest

    // Set by allow_direct_write() before dispatch, then read by the PHP thread.
    int direct_fd_ = -1;  ///< -1: every byte goes through the I/O thread
    http_context* context_ = nullptr;
    std::chrono::steady_clock::time_point request_clock_;
    const std::string* access_log_site_ = nullptr;  ///< the site's name when it logs access

    // Shared between the PHP thread and the I/O thread.
    mutable std::mutex mutex_;
    std::condition_variable drained_;
    std::size_t in_flight_ = 0;  ///< mutex_
    /// mutex_: when the PHP thread wrote the whole response itself.
    std::optional<std::chrono::steady_clock::time_point> completed_directly_;
    bool session_needs_notice_ = false;  ///< mutex_: the session no longer watches the socket
    std::atomic<bool> aborted_{false};
};

}  // namespace spindle::server
