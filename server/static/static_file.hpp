#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>

namespace spindle::server {

/// What conditional and range handling needs to know about a file.
struct file_meta {
    std::uint64_t size = 0;
    std::time_t mtime = 0;
};

/// A strong validator derived from modification time and size, as nginx makes it:
/// "\"<mtime hex>-<size hex>\"".
std::string make_etag(const file_meta& meta);

/// Whether a GET/HEAD for a file with `etag`/`meta` can be answered 304 Not Modified:
/// If-None-Match (a list of tags, or "*") decides when present, else If-Modified-Since.
bool is_not_modified(std::string_view if_none_match, std::string_view if_modified_since,
                     std::string_view etag, const file_meta& meta);

/// One byte range of a file, resolved against its size.
struct byte_range {
    std::uint64_t first = 0;
    std::uint64_t length = 0;
};

/// Outcome of reading a Range header.
enum class range_kind {
    full,           ///< no usable Range: send the whole file (200)
    partial,        ///< one satisfiable range (206)
    unsatisfiable,  ///< syntactically valid but outside the file (416)
};

/// Interprets `range` ("bytes=0-99", "bytes=500-", "bytes=-500") for a file of `size` bytes.
/// Several ranges or unknown units fall back to `full`, which RFC 9110 allows. `if_range` (an
/// ETag or date) that does not match the file also means `full`.
range_kind parse_range(std::string_view range, std::string_view if_range, std::string_view etag,
                       const file_meta& meta, byte_range& out);

}  // namespace spindle::server
