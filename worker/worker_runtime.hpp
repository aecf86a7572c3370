#pragma once

#include <chrono>
#include <cstdint>

#include "sapi/worker_script.hpp"
#include "worker/recycle_policy.hpp"
#include "worker/slot_runtime.hpp"

namespace spindle::sapi {
class engine;
}

namespace spindle::worker {

/// Restart policy of a worker group.
struct worker_policy {
    recycle_policy recycling;          ///< when the script ends and gets a fresh PHP context
    int max_consecutive_failures = 6;  ///< boot failures in a row that abort start-up; -1 never
};

/// The first and the longest wait before booting a failing worker script again. The delay
/// doubles with each failure in a row. 100 ms is the floor docs/architecture.md sets (FrankenPHP's
/// 10 ms made a failing worker burn CPU and memory); the 1 s cap keeps recovery quick once the
/// cause is fixed.
inline constexpr std::chrono::milliseconds first_backoff{100};
inline constexpr std::chrono::milliseconds max_backoff{1000};

/// The wait before the next boot after `consecutive_failures` failed boots in a row.
std::chrono::milliseconds backoff_after(unsigned consecutive_failures) noexcept;

/// Worker mode: each slot thread of the group runs the worker script, which boots once and
/// then serves requests through frankenphp_handle_request(). A script that ends or crashes
/// after serving requests starts again at once; one that dies before reaching
/// frankenphp_handle_request() starts again after a growing delay, and during start-up gives
/// up after `max_consecutive_failures`, so the server refuses to start with the reason.
class worker_runtime final : public slot_runtime {
  public:
    worker_runtime(sapi::engine& engine, sapi::worker_script script, worker_policy policy)
        : engine_(engine), script_(std::move(script)), policy_(policy) {}

    /// Slot thread: the PHP context lives as long as the thread, across script restarts.
    void run_thread(std::size_t index, pool& host) override;
    /// Any thread: the slot's running request ends with a fatal error, its script restarts.
    void interrupt(std::size_t index) noexcept override;
    /// Any thread: the backtrace of the slot's running request (sapi::engine).
    bool request_backtrace(std::size_t index, sapi::backtrace_order order) noexcept override;

    /// The script this group runs.
    const sapi::worker_script& script() const noexcept { return script_; }

  private:
    enum class context_end { stop, recycle };
    /// Runs the script again and again in one PHP thread context until the slot stops or the
    /// recycle policy ended the script (recycle: the caller starts a fresh context).
    context_end run_context(std::size_t index, pool& host, unsigned& failures);

    sapi::engine& engine_;
    const sapi::worker_script script_;
    const worker_policy policy_;
};

}  // namespace spindle::worker
