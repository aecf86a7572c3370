#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/steady_timer.hpp>

#include "sapi/request.hpp"
#include "server/http/active_response.hpp"
#include "server/http/body_store.hpp"
#include "server/http/spill_file.hpp"
#include "server/routing/http_context.hpp"
#include "server/routing/server_snapshot.hpp"

namespace spindle::server {

class php_exchange;

/// Where an HTTP/2 stream's request and response stand. It only moves forward (advance()).
enum class stream_phase {
    receiving,   ///< HEADERS and DATA arriving
    queued,      ///< waiting in the PHP pool's queue (ticket)
    running,     ///< on a PHP thread, no head yet
    responding,  ///< the final head is submitted; body bytes flow as DATA frames
};

/// One part of a response body waiting for DATA frames, in order.
struct body_chunk {
    std::string bytes;                          ///< in memory (offset: how much went)
    std::shared_ptr<const std::string> shared;  ///< or a shared buffer (compressed static file)
    std::shared_ptr<spill_file> spill;          ///< or part of a PHP response's spill file
    int fd = -1;                                ///< or part of a static file (closed here)
    std::uint64_t offset = 0;  ///< bytes/shared: already sent; spill/fd: where the next read starts
    std::uint64_t left = 0;    ///< spill/fd: bytes still to send
    bool is_php_memory = false;  ///< bytes the exchange counts until written (on_written)
};

/// One request/response of an HTTP/2 connection (RFC 9113 section 5). Owned by its
/// http2_session; every member is used on the connection's I/O thread.
class http2_stream {
  public:
    explicit http2_stream(std::int32_t id);
    ~http2_stream();
    http2_stream(const http2_stream&) = delete;
    http2_stream& operator=(const http2_stream&) = delete;

    /// Moves phase_ forward to `to`; never back.
    void advance(stream_phase to) noexcept;
    stream_phase phase() const noexcept { return phase_; }

    /// Copies up to `size` bytes of the waiting body into `out`, acknowledging what PHP's
    /// exchange counts; returns the bytes copied, or -1 when a file cannot be read (the
    /// response cannot be completed).
    long read_body(std::uint8_t* out, std::size_t size);
    /// No body bytes wait.
    bool body_empty() const noexcept { return chunks_.empty(); }
    void queue_body(body_chunk chunk) { chunks_.push_back(std::move(chunk)); }

    const std::int32_t id;

    // The request, as its HEADERS said.
    std::string method;
    std::string scheme;
    std::string authority;
    std::string target;  ///< :path, still encoded, with its query
    std::vector<sapi::header> headers;
    std::string cookie;             ///< the cookie fields, joined with "; " (RFC 9113 8.2.3)
    std::size_t header_bytes = 0;   ///< as SETTINGS_MAX_HEADER_LIST_SIZE counts them
    std::size_t header_fields = 0;  ///< regular fields received
    std::unique_ptr<body_store> body;
    std::uint64_t request_id = 0;
    double start_time = 0;  ///< wall clock, for PHP and the access log
    std::chrono::steady_clock::time_point clock;
    /// The configuration the request started with; `site` points into it.
    std::shared_ptr<const server_snapshot> snapshot;
    const site_context* site = nullptr;
    /// Counted in context.active_responses from its complete header to its close; held by
    /// the exchange while PHP runs.
    std::optional<active_response> in_flight;

    // PHP dispatch.
    std::shared_ptr<php_exchange> exchange;
    std::size_t group = 0;
    std::uint64_t ticket = 0;
    std::unique_ptr<boost::asio::steady_timer> queue_timer;

    // The response.
    int status = 0;
    std::uint64_t bytes_sent = 0;  ///< body bytes gone into DATA frames
    bool body_complete = false;    ///< the last of the body is queued
    bool is_deferred = false;      ///< nghttp2 waits for resume_data

  private:
    stream_phase phase_ = stream_phase::receiving;
    std::deque<body_chunk> chunks_;
};

}  // namespace spindle::server
