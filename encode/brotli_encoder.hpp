#pragma once

#include <brotli/encode.h>

#include "encode/content_encoder.hpp"

namespace spindle::encode {

/// Brotli through libbrotlienc's streaming API (BrotliEncoderCompressStream).
class brotli_encoder final : public content_encoder {
  public:
    /// Quality 5: close to gzip -6 in speed with smaller output. Brotli's own default (11) is
    /// meant for precompressing and is far too slow for responses compressed as they go.
    static constexpr int default_quality = 5;

    /// `size_hint` (0: unknown) lets the encoder size its window. Check is_ready().
    brotli_encoder(int quality, std::size_t size_hint);
    ~brotli_encoder() override;
    brotli_encoder(const brotli_encoder&) = delete;
    brotli_encoder& operator=(const brotli_encoder&) = delete;

    bool is_ready() const { return state_ != nullptr; }
    bool encode(std::string_view input, encode_step step, std::string& out) override;
    content_coding coding() const override { return content_coding::br; }

  private:
    BrotliEncoderState* state_ = nullptr;
};

}  // namespace spindle::encode
