#include "encode/content_encoder.hpp"

#include "encode/brotli_encoder.hpp"
#include "encode/gzip_encoder.hpp"
#include "encode/zstd_encoder.hpp"

namespace spindle::encode {
namespace {

template <typename Encoder>
std::unique_ptr<content_encoder> ready_or_null(std::unique_ptr<Encoder> encoder) {
    if (!encoder->is_ready()) {
        return nullptr;
    }
    return encoder;
}

}  // namespace

std::unique_ptr<content_encoder> make_encoder(content_coding coding, int level,
                                              std::size_t size_hint) {
    switch (coding) {
        case content_coding::gzip: return ready_or_null(std::make_unique<gzip_encoder>(level));
        case content_coding::zstd:
            return ready_or_null(std::make_unique<zstd_encoder>(level, size_hint));
        case content_coding::br:
            return ready_or_null(std::make_unique<brotli_encoder>(level, size_hint));
        case content_coding::identity: return nullptr;
    }
    return nullptr;
}

bool encode_all(content_coding coding, int level, std::string_view input, std::string& out) {
    const std::unique_ptr<content_encoder> encoder = make_encoder(coding, level, input.size());
    return encoder != nullptr && encoder->encode(input, encode_step::finish, out);
}

}  // namespace spindle::encode
