#include "server/http/http_metrics.hpp"

#include <functional>
#include <thread>

namespace spindle::server {

http_metrics::shard& http_metrics::local() noexcept {
    // The I/O threads are few and long-lived: hashing their ids spreads them over the shards.
    const std::size_t hash = std::hash<std::thread::id>{}(std::this_thread::get_id());
    return shards_[hash % shard_count];
}

void http_metrics::record_response(int status, std::chrono::nanoseconds duration) noexcept {
    shard& s = local();
    if (status >= 100 && status <= 599) {
        s.responses_by_class[static_cast<std::size_t>(status / 100 - 1)].fetch_add(
            1, std::memory_order_relaxed);
    }
    s.durations.record(duration);
}

void http_metrics::record_rejection(rejection why) noexcept {
    local().rejections[static_cast<std::size_t>(why)].fetch_add(1, std::memory_order_relaxed);
}

void http_metrics::record_tls_handshake(bool completed) noexcept {
    local().tls_handshakes[completed ? 0 : 1].fetch_add(1, std::memory_order_relaxed);
}

void http_metrics::record_slow_client() noexcept {
    local().slow_clients.fetch_add(1, std::memory_order_relaxed);
}

http_metrics::snapshot http_metrics::read() const noexcept {
    snapshot out;
    for (const shard& s : shards_) {
        for (std::size_t i = 0; i < out.responses_by_class.size(); ++i) {
            out.responses_by_class[i] += s.responses_by_class[i].load(std::memory_order_relaxed);
        }
        for (std::size_t i = 0; i < out.rejections.size(); ++i) {
            out.rejections[i] += s.rejections[i].load(std::memory_order_relaxed);
        }
        for (std::size_t i = 0; i < out.tls_handshakes.size(); ++i) {
            out.tls_handshakes[i] += s.tls_handshakes[i].load(std::memory_order_relaxed);
        }
        out.slow_clients += s.slow_clients.load(std::memory_order_relaxed);
        out.durations += s.durations.read();
    }
    return out;
}

}  // namespace spindle::server
