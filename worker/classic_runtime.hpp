#pragma once

#include "worker/slot_runtime.hpp"

namespace spindle::sapi {
class engine;
}

namespace spindle::worker {

/// Classic (php-fpm-like) mode: each request runs its script from the top, on a thread whose
/// PHP context persists across requests.
class classic_runtime final : public slot_runtime {
  public:
    explicit classic_runtime(sapi::engine& engine) : engine_(engine) {}
    /// Slot thread: create the PHP context once, run request after request, free it at the end.
    void run_thread(std::size_t index, pool& host) override;
    /// Any thread: ends the script slot `index` runs (a stop whose grace period ran out).
    void interrupt(std::size_t index) noexcept override;

  private:
    sapi::engine& engine_;
};

}  // namespace spindle::worker
