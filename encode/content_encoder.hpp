#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "encode/content_coding.hpp"

namespace spindle::encode {

/// What an encode() call asks of the compressor besides taking its input.
enum class encode_step {
    process,  ///< compress; output may stay buffered inside the compressor
    flush,    ///< emit everything so far, decodable now (PHP's flush(), SSE)
    finish,   ///< end the stream; the encoder takes no more input
};

/// One compressed stream: a response body, fed in pieces. Not thread-safe: each stream belongs
/// to one thread at a time (the PHP slot thread of a response, or the I/O thread compressing a
/// static file).
class content_encoder {
  public:
    virtual ~content_encoder() = default;

    /// Compresses `input` and appends the bytes the compressor releases to `out`. Returns
    /// false when the library fails (out of memory); the stream is then unusable.
    virtual bool encode(std::string_view input, encode_step step, std::string& out) = 0;

    /// The coding this encoder produces.
    virtual content_coding coding() const = 0;
};

/// A new stream of `coding` (gzip, zstd or br) at `level` (0: the format's default, otherwise
/// gzip 1-9, zstd 1-19, br 0-11, clamped). `size_hint`, when the whole input's size is known,
/// lets zstd record it in the frame. Returns nullptr for identity or when the library cannot
/// allocate its state.
std::unique_ptr<content_encoder> make_encoder(content_coding coding, int level,
                                              std::size_t size_hint = 0);

/// Compresses a whole body in one call; false when the library fails.
bool encode_all(content_coding coding, int level, std::string_view input, std::string& out);

}  // namespace spindle::encode
