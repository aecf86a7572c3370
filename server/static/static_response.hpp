#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "encode/compressed_cache.hpp"
#include "encode/encode_policy.hpp"
#include "server/http/response_connection.hpp"
#include "server/static/static_file.hpp"

namespace spindle::server {

/// What of a request a static file's answer depends on, however the protocol carries it.
struct static_request {
    bool is_head = false;
    /// GET or HEAD: validators and ranges apply (a hand-off after a POST sends the file).
    bool is_safe = true;
    std::string_view if_none_match;
    std::string_view if_modified_since;
    std::string_view range;
    std::string_view if_range;
    std::string accept_encoding;  ///< every Accept-Encoding field, as one list
};

/// How to answer with a static file: 200, 206, 304 or 416, its fields, and what body goes.
/// Protocol-neutral; each connection writes the head in its own framing (with Date and
/// Server) and sends the body its own way (sendfile, TLS records, DATA frames).
struct static_response {
    int status = 200;
    /// In order, spelt as HTTP/1.1 spells them (HTTP/2 lowers them); no Content-Length.
    std::vector<head_field> fields;
    /// 304 and 416 go out as Spindle's short answers, with `fields` and this text.
    std::string reason;
    /// Bytes of body (Content-Length) for 200 and 206.
    std::uint64_t length = 0;
    /// Set: the body is this compressed copy, not the file.
    std::shared_ptr<const std::string> compressed;
    /// Else the body is this part of the file (none for HEAD).
    byte_range range;
};

/// Decides the answer for the open regular file `fd` (`st` its fstat; `name` its path, whose
/// extension gives the type unless `content_type` is set). `encode` (null: off) may choose a
/// compressed copy from `cache`. `extra` are fields to add (a hand-off's). I/O thread.
static_response plan_static_response(int fd, const struct stat& st, const std::string& name,
                                     std::string_view content_type, const static_request& request,
                                     const encode::encode_policy* encode,
                                     encode::compressed_cache& cache,
                                     const std::vector<head_field>& extra);

/// "Name: value\r\n" lines (a hand-off's formatted fields) as fields.
std::vector<head_field> parse_field_lines(std::string_view lines);

}  // namespace spindle::server
