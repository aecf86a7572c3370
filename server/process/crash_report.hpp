#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace spindle::worker {
class pool;
}

namespace spindle::server {

/// The crash report: on SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT the dying process writes one
/// block to stderr (the server's log) with the signal, the faulting thread, its native stack
/// and every PHP slot's running request, then lets the signal end the process as it would have
/// (same exit status, core dump where enabled). Layout: docs/crash-runbook.md.
///
/// Only async-signal-safe calls run in the handler: write(2), backtrace() (loaded at install),
/// backtrace_symbols_fd(), lock-free atomic loads; no allocation, no spdlog, no stdio. It runs
/// on the thread's alternate signal stack (worker::alternate_signal_stack) where there is one.

/// Installs the handler for the whole process. Control thread, once, at start-up, after the
/// log is set up; `log_format` is the log's ("console" or "json": one JSON object per line).
/// The calling thread gets an alternate signal stack for the life of the process.
void install_crash_report(std::string_view log_format);

/// While it lives, a crash report lists the running requests of `pool`'s slots. Control
/// thread: made once the pool exists, gone before the pool is.
class crash_report_scope {
  public:
    explicit crash_report_scope(const worker::pool& pool) noexcept;
    ~crash_report_scope();

    crash_report_scope(const crash_report_scope&) = delete;
    crash_report_scope& operator=(const crash_report_scope&) = delete;
};

/// One line of a crash report's native stack.
struct stack_line {
    void* frame = nullptr;
    /// Calls of the same frame right below it, shown as one line: a recursion that overflowed
    /// the stack is thousands of them.
    std::uint64_t repeats = 0;
    /// Frames left out between the line before and this one (a stack too deep to show whole).
    std::uint64_t left_out_before = 0;
};

/// The lines of a native stack as the report shows it.
struct stack_summary {
    static constexpr std::size_t innermost = 48;  ///< lines kept from the crash's end
    static constexpr std::size_t outermost = 16;  ///< lines kept from the thread's start
    std::array<stack_line, innermost + outermost> lines{};
    std::size_t count = 0;
};

/// `frames` (innermost first, as backtrace() gives them) with each run of one repeated frame
/// as one line, and only the innermost and outermost lines when there are more runs than fit.
/// Async-signal-safe: no allocation.
stack_summary summarize_stack(std::span<void* const> frames) noexcept;

/// "SIGSEGV" for 11 and so on for the signals the report handles (and SIGKILL, SIGTERM, ...);
/// "signal" for others. Async-signal-safe.
std::string_view signal_name(int signal) noexcept;

/// The name of a siginfo si_code for `signal`: "SEGV_MAPERR", "BUS_ADRALN", "FPE_INTDIV",
/// "ILL_ILLOPC", or a sender's "SI_USER", "SI_TKILL" (raise(), abort()), "SI_QUEUE"; ""
/// when unknown. Async-signal-safe.
std::string_view signal_code_name(int signal, int code) noexcept;

}  // namespace spindle::server
