#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "sapi/backtrace.hpp"

namespace spindle::sapi {

/// How a wait on a mailbox ended.
enum class mailbox_wait {
    posted,       ///< an order came (or one was already there)
    timed_out,    ///< the whole timeout passed
    interrupted,  ///< a signal handler ran (EINTR), as nanosleep() would report it
};

/// Backtrace orders for one slot, posted by any thread (the slow-request watch, the admin
/// endpoint) and taken by the slot's own thread, which alone may read its PHP stack.
///
/// A sleeping script waits on the mailbox (wait()) instead of in nanosleep(): a post wakes it
/// through a futex on a counter, without a signal, so no other blocking call of the thread
/// ever sees an EINTR it did not ask for, and no wake-up is lost between checking for orders
/// and going to sleep (the futex sleeps only while the counter still has the value seen).
/// Nothing here runs per request unless an order is there: has_orders() is one atomic load.
class backtrace_mailbox {
  public:
    /// Orders one slot holds at most; more are refused (a client polling the admin endpoint
    /// of a thread stuck in C code cannot grow it).
    static constexpr std::size_t capacity = 16;

    /// Sets the interrupt of the PHP thread that serves the mailbox: every post() calls
    /// `interrupt(target)` (which sets its VM interrupt) while the thread still runs. Slot
    /// thread, as its PHP context is made.
    void open(void (*interrupt)(void*), void* target) noexcept;

    /// The thread's PHP context goes: later posts are refused; returns the orders left, which
    /// the caller answers. Slot thread, before its PHP context is freed.
    std::vector<backtrace_order> close();

    /// Adds an order, interrupts the thread and wakes a wait(). False, the order dropped
    /// unanswered, when the mailbox is full or not open. Any thread.
    bool post(backtrace_order order);

    /// Whether orders wait; one load, no lock. Any thread.
    bool has_orders() const noexcept { return count_.load(std::memory_order_acquire) != 0; }

    /// Takes every waiting order, oldest first. Slot thread.
    std::vector<backtrace_order> take();

    /// The counter a wait() compares: read it, check has_orders(), then wait with it. Slot
    /// thread.
    std::uint32_t wake_value() const noexcept { return wake_.load(std::memory_order_acquire); }

    /// Sleeps up to `timeout` while the counter is still `seen`. Slot thread.
    mailbox_wait wait(std::uint32_t seen, std::chrono::nanoseconds timeout) noexcept;

  private:
    std::mutex mutex_;
    std::vector<backtrace_order> orders_;  ///< mutex_
    void (*interrupt_)(void*) = nullptr;   ///< mutex_; null while closed
    void* target_ = nullptr;               ///< mutex_
    std::atomic<std::size_t> count_{0};    ///< orders_.size(), for has_orders()
    std::atomic<std::uint32_t> wake_{0};   ///< bumped by every post; the futex word
};

}  // namespace spindle::sapi
