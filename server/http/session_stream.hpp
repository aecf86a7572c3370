#pragma once

#include <cstddef>
#include <optional>
#include <utility>

#include <boost/asio/async_result.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

namespace spindle::server {

/// The byte stream of one connection: plain TCP, or TLS over that TCP stream once start_tls()
/// was called (a TLS listener calls it when the first byte is a TLS handshake record). It is an
/// AsyncReadStream/AsyncWriteStream, so Beast's read_header, read and write compose over it.
///
/// Why one stream type with a branch, not http_session templated on the stream type nor a
/// virtual interface: each async read or write costs one predictable test of `tls_` and nothing
/// else (no allocation, no indirect call), which is lost next to the system call it starts, so
/// plain HTTP keeps its speed (bench/RESULTS.md has the before/after figures). The session,
/// php_exchange and the static-file path stay one non-template class, and a plain request on a
/// TLS port can still be answered in plain HTTP by the same code.
///
/// All members run on the connection's I/O thread, like the session that owns it.
class session_stream {
  public:
    using executor_type = boost::beast::tcp_stream::executor_type;
    using tls_stream = boost::beast::ssl_stream<boost::beast::tcp_stream&>;

    explicit session_stream(boost::asio::ip::tcp::socket&& socket) : tcp_(std::move(socket)) {}
    session_stream(const session_stream&) = delete;
    session_stream& operator=(const session_stream&) = delete;

    executor_type get_executor() noexcept { return tcp_.get_executor(); }

    /// The TCP layer: its timeouts (expires_after) cover the TLS records read and written
    /// through it, and its socket is where sendfile and readiness waits go.
    boost::beast::tcp_stream& tcp() noexcept { return tcp_; }
    boost::asio::ip::tcp::socket& socket() noexcept { return tcp_.socket(); }

    /// The deadline of the reads and writes started from now on (TLS records included).
    template <class Duration>
    void expires_after(Duration duration) {
        tcp_.expires_after(duration);
    }
    /// Closes the socket at once (no TLS close_notify); pending operations fail.
    void close() { tcp_.close(); }

    /// True once start_tls() was called: every read and write goes through TLS.
    bool is_tls() const noexcept { return tls_.has_value(); }
    /// The TLS layer; only when is_tls().
    tls_stream& tls() noexcept { return *tls_; }

    /// Switches to TLS with `context` (a listener's default certificate; SNI may switch it
    /// during the handshake). The handshake is the caller's next step.
    void start_tls(boost::asio::ssl::context& context) { tls_.emplace(tcp_, context); }

    template <class MutableBufferSequence, class ReadToken>
    auto async_read_some(const MutableBufferSequence& buffers, ReadToken&& token) {
        return boost::asio::async_initiate<ReadToken, void(boost::beast::error_code, std::size_t)>(
            [this](auto handler, const MutableBufferSequence& b) {
                if (tls_) {
                    tls_->async_read_some(b, std::move(handler));
                } else {
                    tcp_.async_read_some(b, std::move(handler));
                }
            },
            token, buffers);
    }

    template <class ConstBufferSequence, class WriteToken>
    auto async_write_some(const ConstBufferSequence& buffers, WriteToken&& token) {
        return boost::asio::async_initiate<WriteToken, void(boost::beast::error_code, std::size_t)>(
            [this](auto handler, const ConstBufferSequence& b) {
                if (tls_) {
                    tls_->async_write_some(b, std::move(handler));
                } else {
                    tcp_.async_write_some(b, std::move(handler));
                }
            },
            token, buffers);
    }

  private:
    boost::beast::tcp_stream tcp_;
    std::optional<tls_stream> tls_;  ///< refers to tcp_: declared after it, destroyed first
};

}  // namespace spindle::server
