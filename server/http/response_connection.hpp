#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "server/http/spill_file.hpp"
#include "server/http/x_sendfile.hpp"

namespace spindle::server {

/// One response header field as HTTP/2 carries it: the name in lower case.
struct head_field {
    std::string name;
    std::string value;
};

/// A response head as fields, for a protocol that encodes heads itself (HTTP/2's HPACK); built
/// by http2_head. HTTP/1.1 heads travel as bytes instead (http1_head).
struct response_head {
    int status = 200;  ///< 1xx: an interim response, the final one follows
    std::vector<head_field> fields;
};

/// A piece of a PHP response on its way to the connection's I/O thread; pieces arrive in the
/// order the PHP thread produced them.
struct response_piece {
    std::string bytes;                 ///< the bytes, unless they wait in `file`
    std::shared_ptr<spill_file> file;  ///< set: the piece is file_length bytes of this file
    std::uint64_t file_offset = 0;
    std::uint64_t file_length = 0;
    bool last = false;        ///< ends the response
    bool keep_alive = false;  ///< with last: the connection goes on to the next request
    int status = 0;           ///< the response's final status; 0 before it is known (1xx)
    /// Bytes of this response the PHP thread already sent itself (a partial direct write).
    std::uint64_t sent_directly = 0;
    /// Set (with last): the response is this file, which the session sends (X-Sendfile).
    std::shared_ptr<const file_handoff> handoff;
    /// HTTP/2 only: a head that goes out before this piece's bytes (HTTP/1.1 heads are bytes).
    std::unique_ptr<response_head> head;
};

/// The connection a PHP response goes back to, as php_exchange sees it: the I/O-thread end of
/// the response path. http_session implements it for HTTP/1.1; the unit tests implement it
/// with a fake that records what arrives. Every notice names its request (ids are unique in
/// the process), so the connection drops a late one for an earlier request.
///
/// The exchange calls executor() on the PHP thread and posts the other members there; they
/// run on the connection's I/O thread.
class response_connection {
  public:
    virtual ~response_connection() = default;

    /// The executor every notice below is posted to: the connection's I/O thread.
    virtual boost::asio::any_io_executor executor() = 0;
    /// A piece of the response to `request_id`, in order.
    virtual void deliver(std::uint64_t request_id, response_piece piece) = 0;
    /// The PHP thread wrote `request_id`'s whole response itself while the connection was not
    /// watching the socket (exchange_state::unwatched -> written).
    virtual void on_direct_completion(std::uint64_t request_id) = 0;
    /// The PHP thread could not complete `request_id`'s response (out of memory): close.
    virtual void on_exchange_failed(std::uint64_t request_id) = 0;
};

}  // namespace spindle::server
