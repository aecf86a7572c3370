#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace spindle::worker {

/// A binary wake-up for one sleeping thread, on a bare Linux futex: post() from any thread,
/// wait() from the one owner thread. Several posts before a wait count as one.
///
/// Why not std::condition_variable: a thread woken from pthread_cond_wait() takes its mutex
/// back marked contended, so the next unlock makes a futex call whether anyone waits or not.
/// Why not std::counting_semaphore or std::atomic::wait: libstdc++ spins with up to four
/// sched_yield() calls before it sleeps. Both cost system calls on every request a slot takes.
class wake_signal {
  public:
    /// Wakes the owner, or makes its next wait() return at once (any thread).
    void post() noexcept;
    /// Sleeps until a post() and consumes it (owner thread).
    void wait() noexcept;
    /// As wait(), but gives up at `deadline`; true if a post() came (owner thread).
    bool wait_until(std::chrono::steady_clock::time_point deadline) noexcept;

  private:
    static constexpr std::uint32_t idle = 0;      ///< no post pending, owner not asleep
    static constexpr std::uint32_t posted = 1;    ///< a post is pending
    static constexpr std::uint32_t sleeping = 2;  ///< the owner sleeps (or is about to)

    /// wait() and wait_until(): `deadline` null waits for as long as it takes.
    bool wait_for_post(const std::chrono::steady_clock::time_point* deadline) noexcept;
    /// One sleep on the futex while the state is `sleeping`; false once `deadline` (if any)
    /// passed.
    bool sleep(const std::chrono::steady_clock::time_point* deadline) noexcept;

    std::atomic<std::uint32_t> state_{idle};
};

}  // namespace spindle::worker
