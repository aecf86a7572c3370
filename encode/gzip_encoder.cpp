#include "encode/gzip_encoder.hpp"

#include <algorithm>

#include "encode/block_cache.hpp"

namespace spindle::encode {

gzip_encoder::gzip_encoder(int level) {
    level = level == 0 ? default_level : std::clamp(level, 1, 9);
    stream_.zalloc = [](voidpf, uInt items, uInt size) -> voidpf {
        return block_cache::allocate(static_cast<std::size_t>(items) * size);
    };
    stream_.zfree = [](voidpf, voidpf block) { block_cache::release(block); };
    // 15 + 16: the largest window, wrapped in a gzip header and trailer instead of zlib's.
    ready_ = deflateInit2(&stream_, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
}

gzip_encoder::~gzip_encoder() {
    if (ready_) {
        deflateEnd(&stream_);
    }
}

bool gzip_encoder::encode(std::string_view input, encode_step step, std::string& out) {
    if (!ready_) {
        return false;
    }
    const int flush = step == encode_step::finish  ? Z_FINISH
                      : step == encode_step::flush ? Z_SYNC_FLUSH
                                                   : Z_NO_FLUSH;
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
    stream_.avail_in = static_cast<uInt>(input.size());
    // Deflate into the spare room at the end of `out`, growing it until zlib is done: all
    // input taken and, for a flush or finish, no output left pending.
    for (;;) {
        const std::size_t used = out.size();
        const std::size_t room =
            std::max<std::size_t>(deflateBound(&stream_, stream_.avail_in) + 64, 4096);
        out.resize(used + room);
        stream_.next_out = reinterpret_cast<Bytef*>(out.data() + used);
        stream_.avail_out = static_cast<uInt>(room);
        const int rc = deflate(&stream_, flush);
        out.resize(used + room - stream_.avail_out);
        if (rc == Z_STREAM_END) {
            return true;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            return false;
        }
        // Room left over means zlib had nothing more to give for this step.
        if (stream_.avail_in == 0 && stream_.avail_out > 0 && step != encode_step::finish) {
            return true;
        }
    }
}

}  // namespace spindle::encode
