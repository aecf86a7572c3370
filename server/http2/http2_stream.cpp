#include "server/http2/http2_stream.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "server/exchange/php_exchange.hpp"

namespace spindle::server {

http2_stream::http2_stream(std::int32_t stream_id) : id(stream_id) {}

http2_stream::~http2_stream() {
    for (const body_chunk& chunk : chunks_) {
        if (chunk.fd >= 0) {
            ::close(chunk.fd);
        }
    }
}

void http2_stream::advance(stream_phase to) noexcept {
    phase_ = std::max(phase_, to);
}

long http2_stream::read_body(std::uint8_t* out, std::size_t size) {
    std::size_t done = 0;
    while (done < size && !chunks_.empty()) {
        body_chunk& chunk = chunks_.front();
        std::size_t n = 0;
        if (chunk.spill || chunk.fd >= 0) {
            const std::size_t want =
                static_cast<std::size_t>(std::min<std::uint64_t>(chunk.left, size - done));
            long got = 0;
            if (chunk.spill) {
                got = chunk.spill->read_at(chunk.offset, reinterpret_cast<char*>(out + done), want);
            } else {
                do {
                    got = ::pread(chunk.fd, out + done, want, static_cast<off_t>(chunk.offset));
                } while (got < 0 && errno == EINTR);
            }
            if (got <= 0) {
                return -1;  // the file shrank or cannot be read: the promised body cannot go
            }
            n = static_cast<std::size_t>(got);
            chunk.offset += n;
            chunk.left -= n;
            if (chunk.spill && exchange) {
                exchange->on_file_sent(n);
            }
            if (chunk.left == 0) {
                if (chunk.fd >= 0) {
                    ::close(chunk.fd);
                }
                chunks_.pop_front();
            }
        } else {
            const std::string_view bytes =
                chunk.shared ? std::string_view(*chunk.shared) : std::string_view(chunk.bytes);
            n = std::min<std::size_t>(bytes.size() - chunk.offset, size - done);
            std::memcpy(out + done, bytes.data() + chunk.offset, n);
            chunk.offset += n;
            if (chunk.is_php_memory && exchange) {
                exchange->on_written(n);
            }
            if (chunk.offset == bytes.size()) {
                chunks_.pop_front();
            }
        }
        done += n;
    }
    bytes_sent += done;
    return static_cast<long>(done);
}

}  // namespace spindle::server
