#pragma once

#include <cstddef>
#include <functional>

#include "worker/slot.hpp"

namespace spindle::worker {

/// What a slot thread runs for its whole life. The pool calls run_thread() once on each slot
/// thread; the runtime sets up the thread's PHP context, then pulls requests with `next_job`
/// (which blocks, and returns null when the slot must stop) until it gets null.
///
/// Classic mode runs one script per request (classic_runtime); worker mode will keep a
/// resident script that pulls requests itself. Tests use fakes without PHP.
class slot_runtime {
  public:
    virtual ~slot_runtime() = default;
    /// Runs on slot thread `index`; returns when `next_job` returned null.
    virtual void run_thread(std::size_t index, const std::function<job()>& next_job) = 0;
};

}  // namespace spindle::worker
