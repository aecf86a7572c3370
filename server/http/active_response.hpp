#pragma once

#include <atomic>
#include <cstddef>

namespace spindle::server {

/// One response in flight, counted in a counter (http_context::active_responses) for exactly
/// as long as this guard lives: the graceful stop waits for that count to reach zero, so it
/// must never miss a response nor count one twice. The count was once changed by hand in
/// nine places; a guard cannot be released twice or forgotten on an early return.
///
/// Move-only. The I/O thread creates it when a request's header is complete and keeps it
/// through the response and a closing connection's linger; while PHP runs, the exchange holds
/// it (php_exchange::allow_direct_write), so that a PHP thread that writes the whole response
/// itself ends the count at once, without waking the I/O thread.
class active_response {
  public:
    explicit active_response(std::atomic<std::size_t>& count) noexcept : count_(&count) {
        count_->fetch_add(1, std::memory_order_relaxed);
    }
    active_response(active_response&& other) noexcept : count_(other.count_) {
        other.count_ = nullptr;
    }
    active_response& operator=(active_response&& other) noexcept {
        if (this != &other) {
            release();
            count_ = other.count_;
            other.count_ = nullptr;
        }
        return *this;
    }
    active_response(const active_response&) = delete;
    active_response& operator=(const active_response&) = delete;
    ~active_response() { release(); }

  private:
    void release() noexcept {
        if (count_ != nullptr) {
            count_->fetch_sub(1, std::memory_order_relaxed);
            count_ = nullptr;
        }
    }

    std::atomic<std::size_t>* count_;
};

}  // namespace spindle::server
