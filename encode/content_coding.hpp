#pragma once

#include <optional>
#include <string_view>

namespace spindle::encode {

/// A content coding of a response body (RFC 9110 8.4.1).
enum class content_coding {
    identity,  ///< not encoded
    gzip,      ///< deflate in a gzip wrapper (RFC 1952), zlib
    zstd,      ///< Zstandard (RFC 8878), libzstd
    br,        ///< Brotli (RFC 7932), libbrotlienc
};

/// The token as it appears in Content-Encoding and Accept-Encoding: "gzip", "zstd", "br",
/// "identity".
std::string_view to_string(content_coding coding);

/// The coding a token names, case-insensitively ("x-gzip" is gzip, RFC 9110 8.4.1.3);
/// nullopt for any other token.
std::optional<content_coding> coding_from_token(std::string_view token);

}  // namespace spindle::encode
