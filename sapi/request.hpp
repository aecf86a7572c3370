#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace spindle::sapi {

/// One HTTP header field as received or as PHP produced it.
struct header {
    std::string name;
    std::string value;
};

/// The request body, fully received by the front end before PHP starts (a slow uploader never
/// holds a PHP thread). Read sequentially by the PHP slot thread running the request.
class body_source {
  public:
    virtual ~body_source() = default;
    /// Copies up to `size` bytes into `buffer`; returns 0 at the end. Runs on the PHP slot thread.
    virtual std::size_t read(char* buffer, std::size_t size) noexcept = 0;
};

/// Where a PHP response goes. Implemented by the front end (server/), which frames it as HTTP and
/// hands the bytes to the connection's I/O strand. Every method runs on the PHP slot thread that
/// serves the request, in this order: [send_informational...] send_head, write/flush..., finish.
class output_sink {
  public:
    virtual ~output_sink() = default;
    /// Sends an interim 1xx response (103 Early Hints) with the given headers.
    virtual void send_informational(int status, const std::vector<header>& headers) noexcept = 0;
    /// Sets the final status and headers; called once, before the first body byte.
    /// `reason` is empty unless the script set its own status line.
    virtual void send_head(int status, std::string_view reason,
                           std::vector<header> headers) noexcept = 0;
    /// Appends body bytes. May block while the client is slow (backpressure).
    /// Returns false once the client is gone.
    virtual bool write(std::string_view data) noexcept = 0;
    /// Pushes what was written so far to the client now (PHP's flush()).
    virtual bool flush() noexcept = 0;
    /// Completes the response; the connection moves on while the script may still run.
    /// `script_failed` (a fatal error or uncaught exception) turns a 200 that has not reached
    /// the client yet into a 500, as php-fpm's output buffer allows it to.
    virtual void finish(bool script_failed) noexcept = 0;
    /// True once the client disconnected or a write failed.
    virtual bool is_aborted() const noexcept = 0;
};

/// A request as plain data: everything PHP needs, built by the front end before any PHP code
/// runs and handed to a slot whole. It holds no Beast or Asio type so sapi/ stays independent.
struct request {
    std::uint64_t id = 0;         ///< process-unique, for logs
    std::string method;           ///< "GET"
    std::string uri;              ///< raw request-target in origin form: "/a%20b.php/x?y=1"
    std::string query;            ///< raw query string without '?'
    int http_version = 11;        ///< 10, 11 or 20 (HTTP/2)
    std::vector<header> headers;  ///< in arrival order; names with '_' already dropped
    std::string remote_addr;
    std::uint16_t remote_port = 0;
    std::string server_addr;
    std::uint16_t server_port = 0;  ///< SERVER_PORT: the Host header's port, else the scheme's
    std::string server_name;        ///< Host header without port, or the listen address
    bool is_https = false;
    /// With is_https: the negotiated protocol ("TLSv1.3") and cipher suite, as OpenSSL names
    /// them; views of OpenSSL's static tables, valid for the whole process.
    std::string_view tls_protocol;
    std::string_view tls_cipher;
    std::string document_root;         ///< absolute, no trailing slash
    std::size_t env_index = 0;         ///< the site's environment (engine::add_environment)
    std::string script_filename;       ///< absolute path of the script to run
    std::string script_name;           ///< URL path of the script
    std::string path_info;             ///< decoded, "" if none
    std::string content_type;          ///< "" if none
    std::uint64_t content_length = 0;  ///< exact body size (bodies are received whole)
    double start_time = 0;             ///< seconds since the epoch when the request line arrived
    /// The slot that runs it, written by that slot's thread when it takes the request; the
    /// front end reads it after the response (access log). npos until then.
    std::size_t slot = static_cast<std::size_t>(-1);
    body_source* body = nullptr;  ///< never null while the request runs
    output_sink* sink = nullptr;  ///< never null while the request runs
};

}  // namespace spindle::sapi
