#pragma once

#include <cstddef>
#include <cstdint>

#include "worker/slot_runtime.hpp"

namespace spindle::sapi {
class engine;
}

namespace spindle::worker {

/// Classic (php-fpm-like) mode: each request runs its script from the top, on a thread whose
/// PHP context persists across requests.
class classic_runtime final : public slot_runtime {
  public:
    /// `max_requests`: after this many requests a thread's PHP context is freed and made
    /// afresh; 0 = never.
    classic_runtime(sapi::engine& engine, std::uint64_t max_requests)
        : engine_(engine), max_requests_(max_requests) {}
    /// Slot thread: create the PHP context, run request after request, free it at the end (or
    /// after max_requests, then start again with a fresh one).
    void run_thread(std::size_t index, pool& host) override;
    /// Any thread: ends the script slot `index` runs (a stop whose grace period ran out).
    void interrupt(std::size_t index) noexcept override;

  private:
    /// Slot thread: one PHP context's life; true when it ended at max_requests.
    bool run_context(std::size_t index, pool& host);

    sapi::engine& engine_;
    std::uint64_t max_requests_;
};

}  // namespace spindle::worker
