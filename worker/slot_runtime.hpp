#pragma once

#include <cstddef>
#include <memory>

#include "sapi/backtrace.hpp"
#include "worker/slot.hpp"

namespace spindle::worker {

class pool;

/// What a slot thread runs for its whole life. The pool calls run_thread() once on each slot
/// thread; the runtime sets the thread's PHP context up, then pulls requests with
/// host.next_job(index) (which blocks, and returns null when the slot must stop) until it gets
/// null.
///
/// Classic mode runs one script per request (classic_runtime); worker mode keeps a resident
/// script that pulls requests itself and is restarted through host.restart()
/// (worker_runtime). Tests use fakes without PHP.
class slot_runtime {
  public:
    virtual ~slot_runtime() = default;
    /// Runs on slot thread `index`; returns when the slot must end.
    virtual void run_thread(std::size_t index, pool& host) = 0;
    /// Ends the request slot `index` is running, from another thread (a worker restart or a
    /// stop whose grace period ran out). Runtimes that cannot do that ignore it.
    virtual void interrupt(std::size_t index) noexcept { (void)index; }
    /// Asks slot `index` for the PHP backtrace of its running request (sapi::engine::
    /// request_backtrace), from any thread. False, without calling `order.done`, where the
    /// runtime cannot take one.
    virtual bool request_backtrace(std::size_t index, sapi::backtrace_order order) noexcept {
        (void)index;
        (void)order;
        return false;
    }
};

/// A runtime its owner keeps alive longer than the pool that runs it (tests, benchmarks): the
/// pointer without the ownership.
inline std::shared_ptr<slot_runtime> unowned(slot_runtime& runtime) {
    return std::shared_ptr<slot_runtime>(std::shared_ptr<slot_runtime>(), &runtime);
}

}  // namespace spindle::worker
