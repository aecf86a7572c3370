#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "encode/compressed_cache.hpp"
#include "encode/encode_policy.hpp"

namespace spindle::encode {

/// Static files up to this size are compressed on the fly, on the I/O thread that serves them
/// (a few milliseconds at most, once per file change thanks to the cache); larger ones go out
/// as they are, through sendfile.
constexpr std::uint64_t max_static_compress_size = 2 * 1024 * 1024;

/// How a static file goes out to one client.
struct static_choice {
    bool is_negotiable = false;  ///< the coding depends on Accept-Encoding: send Vary
    content_coding coding = content_coding::identity;
};

/// Decides the coding of a static file of `content_type` and `size` for a client's
/// Accept-Encoding: compressible, at least the minimum length, at most
/// max_static_compress_size. Cheap; compresses nothing.
static_choice choose_static_coding(const encode_policy& policy, std::string_view content_type,
                                   std::uint64_t size, std::string_view accept_encoding);

/// The file open as `fd` (`size` bytes, modified at `mtime_ns`) compressed with `coding`:
/// from the cache, or read with pread and compressed now, then cached. nullptr when the file
/// cannot be read whole or the compressor fails; the caller then sends it uncompressed. I/O
/// thread.
std::shared_ptr<const std::string> compressed_file(compressed_cache& cache,
                                                   const encode_policy& policy,
                                                   content_coding coding, int fd,
                                                   const std::string& path, std::uint64_t size,
                                                   std::int64_t mtime_ns);

}  // namespace spindle::encode
