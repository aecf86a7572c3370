#include "server/process/crash_report.hpp"

#include <execinfo.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <ucontext.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <ctime>
#include <span>

#include "server/process/signal_safe_writer.hpp"
#include "worker/alternate_signal_stack.hpp"
#include "worker/pool.hpp"

namespace spindle::server {
namespace {

constexpr std::array fatal_signals{SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
// Frames of the native stack walked: the handler's own few, then what led to the crash; enough
// for a whole 8 MiB thread stack that a recursion of small frames overflowed.
constexpr int max_frames = 16'384;
// How long a thread that crashes while another one reports waits for that report to end the
// process before it ends it itself.
constexpr int reporter_wait_steps = 200;
constexpr long reporter_wait_step_ns = 50'000'000;

// A signal handler reaches only namespace-scope state. `json` and `utc_offset_seconds` are
// written by the control thread before the handler is installed and only read after.
struct report_settings {
    bool json = false;
    std::int64_t utc_offset_seconds = 0;
};
report_settings settings;
// The pool whose slots the report lists; set and cleared by crash_report_scope.
std::atomic<const worker::pool*> reported_pool{nullptr};
// The thread writing the report (its kernel id); 0 until a thread crashes.
std::atomic<pid_t> reporter{0};

// What crashed, as the handler was told.
struct fault {
    int signal = 0;
    const siginfo_t* info = nullptr;
    const void* context = nullptr;
    pid_t tid = 0;
    std::array<char, 16> thread{};  // prctl(PR_GET_NAME): 15 characters and a NUL
};

// The instruction that faulted (or the system call that sent the signal), from the context the
// kernel saved: the report's stack starts there, below the handler's own frames.
std::uintptr_t program_counter(const void* context) noexcept {
#if defined(__x86_64__)
    return static_cast<std::uintptr_t>(
        static_cast<const ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
    return static_cast<std::uintptr_t>(static_cast<const ucontext_t*>(context)->uc_mcontext.pc);
#else
    (void)context;
    return 0;
#endif
}

// Writes the report's parts in the log's format: a console block (a log line whose
// continuation lines are indented, closed by "end of crash report") or one JSON object.
class report_writer {
  public:
    explicit report_writer(const fault& f) noexcept : fault_(f), json_(settings.json) {}

    void write() noexcept {
        header();
        native_stack();
        requests();
        if (json_) {
            out_.text("}\n");
        } else {
            out_.text("  end of crash report\n");
        }
        out_.flush();
    }

  private:
    // Text from outside (a thread name, a URI), escaped for the format.
    void quoted(std::string_view s) noexcept {
        if (json_) {
            out_.json_escaped(s);
        } else {
            out_.printable(s);
        }
    }

    bool was_sent() const noexcept { return fault_.info->si_code <= 0; }

    void header() noexcept {
        timespec now{};
        clock_gettime(CLOCK_REALTIME, &now);
        const std::string_view thread(fault_.thread.data());
        if (json_) {
            out_.text(R"({"time":")");
            out_.timestamp(now.tv_sec, now.tv_nsec, settings.utc_offset_seconds, true);
            out_.text(R"(","level":"critical","logger":"crash","msg":")");
        } else {
            out_.timestamp(now.tv_sec, now.tv_nsec, settings.utc_offset_seconds, false);
            out_.text(" critical [crash] ");
        }
        // The message: the same sentence in both formats.
        out_.text("fatal signal ").text(signal_name(fault_.signal));
        const std::string_view code = signal_code_name(fault_.signal, fault_.info->si_code);
        if (!code.empty()) {
            out_.text(" (").text(code).text(")");
        }
        if (was_sent()) {
            // kill(), raise(), abort(): si_addr is not an address then, si_pid is the sender.
            out_.text(" sent by process ").signed_decimal(fault_.info->si_pid);
        } else {
            out_.text(" at address ").hex(reinterpret_cast<std::uintptr_t>(fault_.info->si_addr));
        }
        out_.text(" in thread ");
        quoted(thread);
        out_.text(" (tid ").signed_decimal(fault_.tid);
        out_.text("); the process ends with this signal, as without the report");
        if (json_) {
            out_.text(R"(","signal":")").text(signal_name(fault_.signal));
            out_.text(R"(","signal_number":)").signed_decimal(fault_.signal);
            out_.text(R"(,"code":")").text(code);
            out_.text(R"(","si_code":)").signed_decimal(fault_.info->si_code);
            if (was_sent()) {
                out_.text(R"(,"sender_pid":)").signed_decimal(fault_.info->si_pid);
            } else {
                out_.text(R"(,"address":")")
                    .hex(reinterpret_cast<std::uintptr_t>(fault_.info->si_addr))
                    .text("\"");
            }
            out_.text(R"(,"thread":")");
            quoted(thread);
            out_.text(R"(","tid":)").signed_decimal(fault_.tid);
            out_.text(R"(,"pid":)").signed_decimal(getpid());
        } else {
            out_.text(" (pid ").signed_decimal(getpid()).text(")\n");
        }
    }

    void native_stack() noexcept {
        // backtrace() walks the stack from here: the handler's frames, the kernel's signal
        // frame, then the code that crashed. The stack starts at the crash where it is found.
        // Static: too large for the alternate signal stack, and there is one reporter at a time
        // (the `reporter` thread).
        static void* frames[max_frames];
        const int count = backtrace(frames, max_frames);
        int first = 0;
        const std::uintptr_t pc = program_counter(fault_.context);
        for (int i = 0; i < count; ++i) {
            if (reinterpret_cast<std::uintptr_t>(frames[i]) == pc) {
                first = i;
                break;
            }
        }
        const stack_summary summary = summarize_stack(
            std::span<void* const>(frames + first, static_cast<std::size_t>(count - first)));
        if (json_) {
            out_.text(R"(,"stack":[)");
        } else {
            out_.text("  native stack of ").printable(fault_.thread.data());
            out_.text(", innermost call first:\n");
        }
        out_.flush();
        // backtrace_symbols_fd() names each frame's object and symbol on a file descriptor;
        // through a pipe each line is read back and indented or quoted here. Non-blocking: the
        // 64 lines fit the pipe's 64 KiB; more would be dropped, not wait for ever.
        void* shown[stack_summary::innermost + stack_summary::outermost];
        for (std::size_t i = 0; i < summary.count; ++i) {
            shown[i] = summary.lines[i].frame;
        }
        int pipe_ends[2];
        if (pipe2(pipe_ends, O_NONBLOCK | O_CLOEXEC) != 0) {
            // No descriptor left for a pipe: the addresses alone (addr2line names them).
            for (std::size_t i = 0; i < summary.count; ++i) {
                frame(summary.lines[i], {});
            }
        } else {
            backtrace_symbols_fd(shown, static_cast<int>(summary.count), pipe_ends[1]);
            close(pipe_ends[1]);
            frames_from(pipe_ends[0], summary);
            close(pipe_ends[0]);
        }
        out_.text(json_ ? "]" : "");
    }

    // The lines backtrace_symbols_fd() wrote into the pipe `fd` for `summary`'s frames.
    void frames_from(int fd, const stack_summary& summary) noexcept {
        // Static, as the frames: the alternate signal stack stays free for the writer.
        static char chunk[1024];
        static char line[4096];
        std::size_t length = 0;
        std::size_t index = 0;
        for (;;) {
            const ssize_t got = read(fd, chunk, sizeof chunk);
            for (ssize_t i = 0; i < got && index < summary.count; ++i) {
                if (chunk[i] != '\n') {
                    if (length < sizeof line) {
                        line[length++] = chunk[i];
                    }
                    continue;
                }
                frame(summary.lines[index++], {line, length});
                length = 0;
            }
            if (got <= 0) {
                break;
            }
        }
        if (length > 0 && index < summary.count) {
            frame(summary.lines[index], {line, length});
        }
    }

    // One line of the stack: its symbol line (or else its address), with what was left out
    // before it and how often it repeats.
    void frame(const stack_line& shown, std::string_view symbol) noexcept {
        if (shown.left_out_before > 0) {
            stack_note().text("... ").decimal(shown.left_out_before).text(" frames left out ...");
            end_stack_entry();
        }
        start_stack_entry();
        if (symbol.empty()) {
            out_.hex(reinterpret_cast<std::uintptr_t>(shown.frame));
        } else {
            quoted(symbol);
        }
        end_stack_entry();
        if (shown.repeats > 0) {
            stack_note().text("... the frame above ").decimal(shown.repeats).text(" more times");
            end_stack_entry();
        }
    }

    void start_stack_entry() noexcept {
        if (json_) {
            out_.text(stack_entries_++ == 0 ? "\"" : ",\"");
        } else {
            out_.text("    ");
        }
    }
    signal_safe_writer& stack_note() noexcept {
        start_stack_entry();
        return out_;
    }
    void end_stack_entry() noexcept { out_.text(json_ ? "\"" : "\n"); }

    void requests() noexcept {
        const worker::pool* pool = reported_pool.load(std::memory_order_acquire);
        if (pool == nullptr) {
            out_.text(json_ ? R"(,"requests":null)"
                            : "  PHP requests: not known (no PHP threads were running)\n");
            return;
        }
        out_.text(json_ ? R"(,"requests":[)" : "  PHP requests running:\n");
        const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count();
        int listed = 0;
        for (const std::unique_ptr<worker::slot>& s : pool->slots()) {
            worker::slot::running_copy copy;
            if (!s->copy_running(copy)) {
                continue;
            }
            const bool crashed = s->thread_id() == fault_.tid;
            const std::int64_t running_ms = (now > copy.since ? now - copy.since : 0) / 1'000'000;
            const std::string_view state = worker::to_string(s->state());
            if (json_) {
                out_.text(listed == 0 ? "{" : ",{");
                out_.text(R"("slot":)").decimal(s->index());
                out_.text(R"(,"state":")").text(state);
                out_.text(R"(","method":")");
                quoted(copy.method);
                out_.text(R"(","uri":")");
                quoted(copy.uri);
                out_.text(R"(","client":")");
                quoted(copy.client);
                out_.text("\"");
                if (copy.id != 0) {
                    out_.text(R"(,"request_id":)").decimal(copy.id);
                }
                out_.text(R"(,"running_ms":)").signed_decimal(running_ms);
                out_.text(R"(,"crashed":)").text(crashed ? "true}" : "false}");
            } else {
                out_.text("    slot ").decimal(s->index()).text(" (").text(state).text(") ");
                quoted(copy.method);
                out_.text(" ");
                quoted(copy.uri);
                out_.text(" from ");
                quoted(copy.client);
                if (copy.id != 0) {
                    out_.text(", req ").decimal(copy.id);
                }
                out_.text(", running ").signed_decimal(running_ms).text(" ms");
                out_.text(crashed ? "  <- crashed here\n" : "\n");
            }
            ++listed;
        }
        if (json_) {
            out_.text("]");
        } else if (listed == 0) {
            out_.text("    none\n");
        }
    }

    const fault& fault_;
    const bool json_;
    int stack_entries_ = 0;  // JSON: entries of "stack" written so far
    signal_safe_writer out_{STDERR_FILENO};
};

// Lets the signal do what it would have done without the handler: the default action, at the
// interrupted instruction. The signal is blocked while its handler runs, so raise() leaves it
// pending; it is delivered as the handler returns, which also covers a signal that was sent
// (raise(SIGFPE) would otherwise simply return to the caller) and one the faulting instruction
// would raise again.
void end_with(int signal) noexcept {
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    sigaction(signal, &default_action, nullptr);
    raise(signal);
}

// The handler: runs on the thread that crashed (on its alternate signal stack if it has one),
// with the other fatal signals blocked.
void on_fatal_signal(int signal, siginfo_t* info, void* context) {
    fault f;
    f.signal = signal;
    f.info = info;
    f.context = context;
    f.tid = gettid();
    pid_t none = 0;
    if (reporter.compare_exchange_strong(none, f.tid)) {
        prctl(PR_GET_NAME, f.thread.data());
        report_writer(f).write();
    } else {
        // Another thread is writing its report and then ends the process; this one waits (a
        // second block would only interleave with the first), unless that takes too long.
        for (int step = 0; step < reporter_wait_steps; ++step) {
            timespec pause{0, reporter_wait_step_ns};
            nanosleep(&pause, nullptr);
        }
    }
    end_with(signal);
}

}  // namespace

void install_crash_report(std::string_view log_format) {
    settings.json = log_format == "json";
    // The local time's offset from UTC, for the report's time stamp: the handler cannot call
    // localtime_r() (it takes a lock). A daylight-saving change later shifts it by an hour.
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    if (localtime_r(&now, &local) != nullptr) {
        settings.utc_offset_seconds = local.tm_gmtoff;
    }
    // glibc's backtrace() loads libgcc_s on its first call (dlopen, malloc): done here, where
    // that is allowed, so the handler's call only walks the stack.
    void* frame[1];
    backtrace(frame, 1);
    // The control thread's signal stack. Never freed: the handler may run on it until the
    // process ends.
    static const worker::alternate_signal_stack* const control_stack =
        new worker::alternate_signal_stack;
    (void)control_stack;
    struct sigaction action {};
    action.sa_sigaction = on_fatal_signal;
    // SA_ONSTACK: on the thread's alternate stack, so a stack overflow still reports. The other
    // fatal signals are blocked meanwhile: a fault inside the handler then ends the process at
    // once (the kernel's default for a blocked synchronous signal) instead of recursing.
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (const int signal : fatal_signals) {
        sigaddset(&action.sa_mask, signal);
    }
    for (const int signal : fatal_signals) {
        sigaction(signal, &action, nullptr);
    }
}

crash_report_scope::crash_report_scope(const worker::pool& pool) noexcept {
    reported_pool.store(&pool, std::memory_order_release);
}

crash_report_scope::~crash_report_scope() {
    reported_pool.store(nullptr, std::memory_order_release);
}

stack_summary summarize_stack(std::span<void* const> frames) noexcept {
    stack_summary summary;
    // The outermost lines go round a ring once the innermost ones are full; what falls out of
    // it is counted as left out.
    std::array<stack_line, stack_summary::outermost> ring{};
    std::size_t ring_start = 0;
    std::size_t ring_count = 0;
    std::uint64_t left_out = 0;
    stack_line* last = nullptr;
    for (void* const frame : frames) {
        if (last != nullptr && last->frame == frame) {
            ++last->repeats;
            continue;
        }
        if (summary.count < stack_summary::innermost) {
            last = &summary.lines[summary.count++];
        } else {
            if (ring_count == ring.size()) {
                left_out += 1 + ring[ring_start].repeats;
                ring_start = (ring_start + 1) % ring.size();
                --ring_count;
            }
            last = &ring[(ring_start + ring_count++) % ring.size()];
        }
        *last = stack_line{frame, 0, 0};
    }
    for (std::size_t i = 0; i < ring_count; ++i) {
        stack_line& line = summary.lines[summary.count++];
        line = ring[(ring_start + i) % ring.size()];
        line.left_out_before = i == 0 ? left_out : 0;
    }
    return summary;
}

std::string_view signal_name(int signal) noexcept {
    switch (signal) {
        case SIGSEGV: return "SIGSEGV";
        case SIGBUS: return "SIGBUS";
        case SIGFPE: return "SIGFPE";
        case SIGILL: return "SIGILL";
        case SIGABRT: return "SIGABRT";
        case SIGTRAP: return "SIGTRAP";
        case SIGSYS: return "SIGSYS";
        case SIGKILL: return "SIGKILL";
        case SIGTERM: return "SIGTERM";
        case SIGINT: return "SIGINT";
        case SIGQUIT: return "SIGQUIT";
        default: return "signal";
    }
}

std::string_view signal_code_name(int signal, int code) noexcept {
    // Sent by a process: the same codes for every signal.
    switch (code) {
        case SI_USER: return "SI_USER";
        case SI_TKILL: return "SI_TKILL";
        case SI_QUEUE: return "SI_QUEUE";
        case SI_KERNEL: return "SI_KERNEL";
        default: break;
    }
    if (signal == SIGSEGV) {
        switch (code) {
            case SEGV_MAPERR: return "SEGV_MAPERR";
            case SEGV_ACCERR: return "SEGV_ACCERR";
            default: return "";
        }
    }
    if (signal == SIGBUS) {
        switch (code) {
            case BUS_ADRALN: return "BUS_ADRALN";
            case BUS_ADRERR: return "BUS_ADRERR";
            case BUS_OBJERR: return "BUS_OBJERR";
            default: return "";
        }
    }
    if (signal == SIGFPE) {
        switch (code) {
            case FPE_INTDIV: return "FPE_INTDIV";
            case FPE_INTOVF: return "FPE_INTOVF";
            case FPE_FLTDIV: return "FPE_FLTDIV";
            case FPE_FLTOVF: return "FPE_FLTOVF";
            case FPE_FLTUND: return "FPE_FLTUND";
            case FPE_FLTRES: return "FPE_FLTRES";
            case FPE_FLTINV: return "FPE_FLTINV";
            case FPE_FLTSUB: return "FPE_FLTSUB";
            default: return "";
        }
    }
    if (signal == SIGILL) {
        switch (code) {
            case ILL_ILLOPC: return "ILL_ILLOPC";
            case ILL_ILLOPN: return "ILL_ILLOPN";
            case ILL_ILLADR: return "ILL_ILLADR";
            case ILL_ILLTRP: return "ILL_ILLTRP";
            case ILL_PRVOPC: return "ILL_PRVOPC";
            case ILL_PRVREG: return "ILL_PRVREG";
            case ILL_COPROC: return "ILL_COPROC";
            case ILL_BADSTK: return "ILL_BADSTK";
            default: return "";
        }
    }
    return "";
}

}  // namespace spindle::server
