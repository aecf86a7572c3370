#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/server_config.hpp"
#include "sapi/request.hpp"

namespace spindle::server {

// X-Sendfile / X-Accel-Redirect: a PHP response names a file and the server sends it, so a
// download holds no PHP thread (FrankenPHP issue #1796). The PHP thread takes the request out
// of the response head (take_file_handoff); the connection's I/O thread opens the file
// (open_handoff_file) and serves it as a static file, with Range and conditional requests.

/// A PHP response's request to be answered with a file instead of its body.
struct file_handoff {
    std::string target;              ///< the header's value: a path, or a URL path
    bool is_accel_redirect = false;  ///< X-Accel-Redirect (URL path) rather than X-Sendfile
    /// The script's header lines that go on the file's response, "Name: value\r\n" each:
    /// all but framing, validators and the X-Sendfile / X-Accel-* fields.
    std::string headers;
    /// The script's own Content-Type; empty when it left PHP's text/html default (or set
    /// text/html), and the file's extension decides.
    std::string content_type;
};

/// PHP slot thread: the hand-off a response head asks for; nullopt when it has neither an
/// X-Sendfile nor an X-Accel-Redirect field (non-empty). X-Sendfile wins when both are set.
std::optional<file_handoff> take_file_handoff(const std::vector<sapi::header>& headers);

/// Removes the X-Sendfile and X-Accel-Redirect fields from a head that will not be handed off
/// (the script failed): they must never reach the client.
void drop_handoff_fields(std::vector<sapi::header>& headers);

/// A hand-off's file, opened; or why not.
struct handoff_file {
    int status = 0;      ///< 0: `fd` is open; else 403 or 404, as nginx answers
    int fd = -1;         ///< O_RDONLY, the caller closes it
    std::string name;    ///< the path the response named (for its Content-Type)
    std::string reason;  ///< for the log, when status is not 0
};

/// I/O thread: opens the file a hand-off names, only inside the configured directories.
/// X-Sendfile takes an absolute path under one of `roots`; X-Accel-Redirect a URL path under
/// one of the `accel_redirect` prefixes. A path with a ".." segment, a file whose real path
/// (after symlinks, read back from the open descriptor, so no race) leaves those directories,
/// a directory or an unreadable file: 403; a path outside every prefix or a missing file: 404.
handoff_file open_handoff_file(const config::x_sendfile_config& config,
                               const file_handoff& handoff);

/// I/O thread: the request fields that tell the app how to hand off, replacing any the client
/// sent: `X-Sendfile-Type: X-Sendfile` (or `X-Accel-Redirect` when only prefixes are
/// configured), and `X-Accel-Mapping: DIR/=/prefix/, ...` for the prefixes, which Symfony's
/// BinaryFileResponse::trustXSendfileTypeHeader() and Rack::Sendfile read.
void set_x_sendfile_request_headers(const config::x_sendfile_config& config,
                                    std::vector<sapi::header>& headers);

}  // namespace spindle::server
