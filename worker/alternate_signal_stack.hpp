#pragma once

#include <csignal>
#include <cstddef>

namespace spindle::worker {

/// A signal stack of its own for the thread that creates it, for as long as it lives: a
/// handler installed with SA_ONSTACK (the crash report, server/process/crash_report.hpp) then runs
/// on it, so a thread that overflowed its own stack (deep recursion in an extension) can still
/// report. Create one at the top of a thread's body, on that thread: the PHP slot threads
/// (pool::run_slot) and the I/O threads. A guard page below it turns an overflow of the
/// signal stack itself into a second fault (the kernel then ends the process) rather than a
/// write into other memory.
class alternate_signal_stack {
  public:
    /// Maps the stack and makes it the calling thread's (sigaltstack). Without memory for it
    /// the thread keeps running without one: a crash is still reported unless it is a stack
    /// overflow.
    alternate_signal_stack() noexcept;
    /// Gives the thread back the signal stack it had before (none, or a sanitizer's) and
    /// unmaps this one. Same thread as the constructor.
    ~alternate_signal_stack();

    alternate_signal_stack(const alternate_signal_stack&) = delete;
    alternate_signal_stack& operator=(const alternate_signal_stack&) = delete;

    /// Bytes a handler may use: backtrace() and the report's 4 KiB buffer fit several times.
    static constexpr std::size_t size = 64 * 1024;

  private:
    void* mapping_ = nullptr;  ///< guard page + stack; nullptr when mmap failed
    std::size_t mapping_size_ = 0;
    stack_t previous_{};
    bool installed_ = false;
};

}  // namespace spindle::worker
