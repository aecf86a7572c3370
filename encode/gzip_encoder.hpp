#pragma once

#include <zlib.h>

#include "encode/content_encoder.hpp"

namespace spindle::encode {

/// gzip through zlib's deflate with the gzip wrapper (window bits 15 + 16).
class gzip_encoder final : public content_encoder {
  public:
    /// Default level 6, zlib's own default: a good ratio at about 4x the speed of level 9.
    static constexpr int default_level = 6;

    /// Check is_ready() after construction: deflateInit2 can fail to allocate.
    explicit gzip_encoder(int level);
    ~gzip_encoder() override;
    gzip_encoder(const gzip_encoder&) = delete;
    gzip_encoder& operator=(const gzip_encoder&) = delete;

    bool is_ready() const { return ready_; }
    bool encode(std::string_view input, encode_step step, std::string& out) override;
    content_coding coding() const override { return content_coding::gzip; }

  private:
    z_stream stream_{};
    bool ready_ = false;
};

}  // namespace spindle::encode
