#pragma once

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

/// "SIGSEGV" for 11 and so on for the signals the report handles (and SIGKILL, SIGTERM, ...);
/// "signal" for others. Async-signal-safe.
std::string_view signal_name(int signal) noexcept;

/// The name of a siginfo si_code for `signal`: "SEGV_MAPERR", "BUS_ADRALN", "FPE_INTDIV",
/// "ILL_ILLOPC", or a sender's "SI_USER", "SI_TKILL" (raise(), abort()), "SI_QUEUE"; ""
/// when unknown. Async-signal-safe.
std::string_view signal_code_name(int signal, int code) noexcept;

}  // namespace spindle::server
