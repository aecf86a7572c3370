#include "encode/zstd_encoder.hpp"

#include <algorithm>

#include "encode/block_cache.hpp"

namespace spindle::encode {

zstd_encoder::zstd_encoder(int level, std::size_t size_hint)
    : context_(ZSTD_createCCtx_advanced(
          {[](void*, std::size_t size) { return block_cache::allocate(size); },
           [](void*, void* block) { block_cache::release(block); }, nullptr})) {
    if (context_ == nullptr) {
        return;
    }
    // Up to 19: the "ultra" levels above use windows over 8 MiB, more than browsers decode
    // (RFC 8878 9.1 asks HTTP encoders to stay within 8 MiB).
    level = level == 0 ? default_level : std::clamp(level, 1, 19);
    ZSTD_CCtx_setParameter(context_, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(context_, ZSTD_c_checksumFlag, 0);
    if (size_hint > 0) {
        ZSTD_CCtx_setPledgedSrcSize(context_, size_hint);
    }
}

zstd_encoder::~zstd_encoder() {
    ZSTD_freeCCtx(context_);
}

bool zstd_encoder::encode(std::string_view input, encode_step step, std::string& out) {
    if (context_ == nullptr) {
        return false;
    }
    const ZSTD_EndDirective directive = step == encode_step::finish  ? ZSTD_e_end
                                        : step == encode_step::flush ? ZSTD_e_flush
                                                                     : ZSTD_e_continue;
    ZSTD_inBuffer in{input.data(), input.size(), 0};
    for (;;) {
        const std::size_t used = out.size();
        const std::size_t room =
            std::max<std::size_t>(ZSTD_compressBound(in.size - in.pos), 16 * 1024);
        out.resize(used + room);
        ZSTD_outBuffer buffer{out.data() + used, room, 0};
        const std::size_t remaining = ZSTD_compressStream2(context_, &buffer, &in, directive);
        out.resize(used + buffer.pos);
        if (ZSTD_isError(remaining)) {
            return false;
        }
        // continue: done once the input is taken; flush and end: once nothing remains inside.
        if (directive == ZSTD_e_continue ? in.pos == in.size : remaining == 0) {
            return true;
        }
    }
}

}  // namespace spindle::encode
