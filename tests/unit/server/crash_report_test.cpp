#include "server/crash_report.hpp"

#include <gtest/gtest.h>

#include <csignal>

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

}  // namespace
}  // namespace spindle::server
