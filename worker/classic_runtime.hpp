#pragma once

#include <cstddef>
#include <cstdint>

#include "worker/recycle_policy.hpp"
#include "worker/slot_runtime.hpp"

namespace spindle::sapi {
class engine;
}

namespace spindle::worker {

/// Classic (php-fpm-like) mode: each request runs its script from the top, on a thread whose
/// PHP context persists across requests.
class classic_runtime final : public slot_runtime {
  public:
    /// `recycling`: when a thread's PHP context is freed and made afresh.
    classic_runtime(sapi::engine& engine, recycle_policy recycling)
        : engine_(engine), recycling_(recycling) {}
    /// Slot thread: create the PHP context, run request after request, free it at the end (or
    /// when `recycling` says so, then start again with a fresh one).
    void run_thread(std::size_t index, pool& host) override;
    /// Any thread: ends the script slot `index` runs (a stop whose grace period ran out).
    void interrupt(std::size_t index) noexcept override;
    /// Any thread: the backtrace of the slot's running request (sapi::engine).
    bool request_backtrace(std::size_t index, sapi::backtrace_order order) noexcept override;

  private:
    /// Slot thread: one PHP context's life; true when it ended to be recycled.
    bool run_context(std::size_t index, pool& host);

    sapi::engine& engine_;
    const recycle_policy recycling_;
};

}  // namespace spindle::worker
