#pragma once

namespace spindle::sapi {

/// Replaces sleep(), usleep(), time_nanosleep() and time_sleep_until() in the calling slot
/// thread's function table with versions that sleep on the slot's backtrace mailbox: a
/// backtrace order (slow log, admin endpoint) wakes the sleeping script, is served on its own
/// thread with sleep() on top of the stack, and the sleep goes on for the time left. Return
/// values, errors and the reaction to signals are PHP's (ext/standard/basic_functions.c). Slot
/// thread, after ts_resource().
void install_sleep_functions();

}  // namespace spindle::sapi
