#include "server/process/crash_report.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdint>
#include <vector>

namespace spindle::server {
namespace {

TEST(CrashReport, NamesTheSignalsItReports) {
    EXPECT_EQ(signal_name(SIGSEGV), "SIGSEGV");
    EXPECT_EQ(signal_name(SIGBUS), "SIGBUS");
    EXPECT_EQ(signal_name(SIGFPE), "SIGFPE");
    EXPECT_EQ(signal_name(SIGILL), "SIGILL");
    EXPECT_EQ(signal_name(SIGABRT), "SIGABRT");
    EXPECT_EQ(signal_name(SIGRTMIN + 3), "signal");
}

TEST(CrashReport, NamesSignalCodesPerSignal) {
    // The kernel's codes overlap between signals: 1 is SEGV_MAPERR, BUS_ADRALN, FPE_INTDIV...
    EXPECT_EQ(signal_code_name(SIGSEGV, SEGV_MAPERR), "SEGV_MAPERR");
    EXPECT_EQ(signal_code_name(SIGSEGV, SEGV_ACCERR), "SEGV_ACCERR");
    EXPECT_EQ(signal_code_name(SIGBUS, BUS_ADRALN), "BUS_ADRALN");
    EXPECT_EQ(signal_code_name(SIGBUS, BUS_ADRERR), "BUS_ADRERR");
    EXPECT_EQ(signal_code_name(SIGFPE, FPE_INTDIV), "FPE_INTDIV");
    EXPECT_EQ(signal_code_name(SIGFPE, FPE_FLTINV), "FPE_FLTINV");
    EXPECT_EQ(signal_code_name(SIGILL, ILL_ILLOPC), "ILL_ILLOPC");
    EXPECT_EQ(signal_code_name(SIGILL, ILL_PRVOPC), "ILL_PRVOPC");
    // Sent by a process (kill, raise, abort, sigqueue) or the kernel: the same for every signal.
    EXPECT_EQ(signal_code_name(SIGABRT, SI_TKILL), "SI_TKILL");
    EXPECT_EQ(signal_code_name(SIGFPE, SI_TKILL), "SI_TKILL");
    EXPECT_EQ(signal_code_name(SIGSEGV, SI_USER), "SI_USER");
    EXPECT_EQ(signal_code_name(SIGBUS, SI_QUEUE), "SI_QUEUE");
    EXPECT_EQ(signal_code_name(SIGSEGV, SI_KERNEL), "SI_KERNEL");
    // Unknown codes name nothing.
    EXPECT_EQ(signal_code_name(SIGSEGV, 99), "");
    EXPECT_EQ(signal_code_name(SIGABRT, 1), "");
}

// A fake frame address per number.
void* at(std::uintptr_t n) {
    return reinterpret_cast<void*>(0x1000 + n);
}

TEST(CrashReportStack, ShowsAShallowStackWhole) {
    const std::vector<void*> frames{at(1), at(2), at(3)};
    const stack_summary summary = summarize_stack(frames);
    ASSERT_EQ(summary.count, 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(summary.lines[i].frame, frames[i]);
        EXPECT_EQ(summary.lines[i].repeats, 0u);
        EXPECT_EQ(summary.lines[i].left_out_before, 0u);
    }
    EXPECT_EQ(summarize_stack({}).count, 0u);
}

TEST(CrashReportStack, FoldsARecursionIntoOneLine) {
    // The crash, 5000 calls of one recursive frame, then the engine and the thread's start.
    std::vector<void*> frames{at(1)};
    frames.insert(frames.end(), 5000, at(2));
    frames.push_back(at(3));
    frames.push_back(at(4));
    const stack_summary summary = summarize_stack(frames);
    ASSERT_EQ(summary.count, 4u);
    EXPECT_EQ(summary.lines[1].frame, at(2));
    EXPECT_EQ(summary.lines[1].repeats, 4999u);
    EXPECT_EQ(summary.lines[2].frame, at(3));
    EXPECT_EQ(summary.lines[3].frame, at(4));
}

TEST(CrashReportStack, KeepsTheInnermostAndOutermostOfADeepStack) {
    // 200 different frames, and one of the left-out ones repeats 9 times.
    std::vector<void*> frames;
    for (std::uintptr_t n = 0; n < 200; ++n) {
        frames.insert(frames.end(), n == 100 ? 10 : 1, at(n));
    }
    const stack_summary summary = summarize_stack(frames);
    ASSERT_EQ(summary.count, stack_summary::innermost + stack_summary::outermost);
    for (std::size_t i = 0; i < stack_summary::innermost; ++i) {
        EXPECT_EQ(summary.lines[i].frame, at(i));
        EXPECT_EQ(summary.lines[i].left_out_before, 0u);
    }
    const stack_line& first_outer = summary.lines[stack_summary::innermost];
    EXPECT_EQ(first_outer.frame, at(200 - stack_summary::outermost));
    // Frames 48..183, the nine repeats included.
    EXPECT_EQ(first_outer.left_out_before, 200 - 48 - 16 + 9u);
    EXPECT_EQ(summary.lines[summary.count - 1].frame, at(199));
    EXPECT_EQ(summary.lines[summary.count - 1].left_out_before, 0u);
}

}  // namespace
}  // namespace spindle::server
