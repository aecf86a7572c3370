#pragma once

#include <atomic>
#include <cstddef>

namespace spindle::server {

/// Bytes that every connection together may hold in memory for one purpose (PHP responses
/// waiting for slow clients). A response that finds the budget spent goes to a temporary file
/// instead, so the total holds however many clients read slowly. Lock-free; any thread.
class memory_budget {
  public:
    explicit memory_budget(std::size_t limit) noexcept : limit_(limit) {}
    memory_budget(const memory_budget&) = delete;
    memory_budget& operator=(const memory_budget&) = delete;

    /// Takes `bytes` if the total stays within the limit; false (nothing taken) otherwise.
    bool try_take(std::size_t bytes) noexcept {
        std::size_t used = used_.load(std::memory_order_relaxed);
        do {
            if (bytes > limit_ || used > limit_ - bytes) {
                return false;
            }
        } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
        return true;
    }

    /// Takes `bytes` whatever the total: for what cannot go elsewhere (a response that may not
    /// spill holds its bounded share, as it did before there was a budget).
    void take(std::size_t bytes) noexcept { used_.fetch_add(bytes, std::memory_order_relaxed); }

    /// Returns bytes taken before.
    void give_back(std::size_t bytes) noexcept {
        used_.fetch_sub(bytes, std::memory_order_relaxed);
    }

    /// Bytes taken now.
    std::size_t used() const noexcept { return used_.load(std::memory_order_relaxed); }

  private:
    const std::size_t limit_;
    std::atomic<std::size_t> used_{0};
};

}  // namespace spindle::server
