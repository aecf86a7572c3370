#pragma once

// ZSTD_createCCtx_advanced (custom allocation) sits in zstd's "static linking only" section;
// libzstd.so exports it, and it is unchanged since zstd 1.0.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "encode/content_encoder.hpp"

namespace spindle::encode {

/// Zstandard through libzstd's streaming API (ZSTD_compressStream2).
class zstd_encoder final : public content_encoder {
  public:
    /// Level 3, zstd's own default: faster than gzip -6 with a better ratio.
    static constexpr int default_level = 3;

    /// `size_hint` (0: unknown) goes into the frame header, so one-shot decoders can size
    /// their buffer. Check is_ready() after construction.
    zstd_encoder(int level, std::size_t size_hint);
    ~zstd_encoder() override;
    zstd_encoder(const zstd_encoder&) = delete;
    zstd_encoder& operator=(const zstd_encoder&) = delete;

    bool is_ready() const { return context_ != nullptr; }
    bool encode(std::string_view input, encode_step step, std::string& out) override;
    content_coding coding() const override { return content_coding::zstd; }

  private:
    ZSTD_CCtx* context_ = nullptr;
};

}  // namespace spindle::encode
