#include "encode/brotli_encoder.hpp"

#include <algorithm>
#include <cstdint>

#include "encode/block_cache.hpp"

namespace spindle::encode {

brotli_encoder::brotli_encoder(int quality, std::size_t size_hint)
    : state_(BrotliEncoderCreateInstance(
          [](void*, std::size_t size) { return block_cache::allocate(size); },
          [](void*, void* block) { block_cache::release(block); }, nullptr)) {
    if (state_ == nullptr) {
        return;
    }
    quality = quality == 0 ? default_quality : std::clamp(quality, 0, 11);
    BrotliEncoderSetParameter(state_, BROTLI_PARAM_QUALITY, static_cast<std::uint32_t>(quality));
    // A 4 MiB window (lgwin 22, the library default) at most; a small body needs less.
    BrotliEncoderSetParameter(state_, BROTLI_PARAM_LGWIN, 22);
    if (size_hint > 0) {
        BrotliEncoderSetParameter(
            state_, BROTLI_PARAM_SIZE_HINT,
            static_cast<std::uint32_t>(std::min<std::size_t>(size_hint, 1u << 30)));
    }
}

brotli_encoder::~brotli_encoder() {
    BrotliEncoderDestroyInstance(state_);
}

bool brotli_encoder::encode(std::string_view input, encode_step step, std::string& out) {
    if (state_ == nullptr) {
        return false;
    }
    const BrotliEncoderOperation operation = step == encode_step::finish ? BROTLI_OPERATION_FINISH
                                             : step == encode_step::flush
                                                 ? BROTLI_OPERATION_FLUSH
                                                 : BROTLI_OPERATION_PROCESS;
    std::size_t available_in = input.size();
    const auto* next_in = reinterpret_cast<const std::uint8_t*>(input.data());
    for (;;) {
        const std::size_t used = out.size();
        const std::size_t room =
            std::max<std::size_t>(available_in + available_in / 8 + 1024, 16 * 1024);
        out.resize(used + room);
        std::size_t available_out = room;
        auto* next_out = reinterpret_cast<std::uint8_t*>(out.data() + used);
        const bool ok = BrotliEncoderCompressStream(state_, operation, &available_in, &next_in,
                                                    &available_out, &next_out, nullptr) != 0;
        out.resize(used + room - available_out);
        if (!ok) {
            return false;
        }
        if (available_in == 0 && !BrotliEncoderHasMoreOutput(state_) &&
            (step != encode_step::finish || BrotliEncoderIsFinished(state_))) {
            return true;
        }
    }
}

}  // namespace spindle::encode
