#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>

#include "sapi/request.hpp"
#include "worker/slot_state.hpp"

namespace spindle::worker {

/// A request on its way to a PHP thread. The front end owns what the pointer aliases (body,
/// sink); the shared ownership keeps it alive until the PHP thread lets go.
using job = std::shared_ptr<sapi::request>;

/// One PHP interpreter thread and its place in the pool. Its index is its identity: the SAPI
/// finds the request it serves through that index alone.
///
/// Fields marked "pool mutex" are read and written only with the owning dispatch group's mutex
/// held; the state is atomic so observers (metrics, admin) can read it without the lock.
class slot {
  public:
    explicit slot(std::size_t index) : index_(index) {}

    /// The slot's index in the pool's array.
    std::size_t index() const noexcept { return index_; }

    /// Current state; safe from any thread.
    slot_state state() const noexcept { return state_.load(std::memory_order_acquire); }

    /// The one way to change the state. Returns false (and changes nothing) when the state
    /// machine does not allow the change. Runs on the slot's own thread, or on a dispatching
    /// thread that holds the pool mutex while the slot is in a stable state (ready).
    bool transition(slot_state to) noexcept;

    /// Requests served since the thread started; read from any thread.
    std::uint64_t requests_served() const noexcept {
        return requests_served_.load(std::memory_order_relaxed);
    }

  private:
    friend class pool;

    const std::size_t index_;
    std::atomic<slot_state> state_{slot_state::reserved};
    std::atomic<std::uint64_t> requests_served_{0};
    job assigned_;                    ///< pool mutex: the next request for this slot
    std::condition_variable wakeup_;  ///< pool mutex: signalled when assigned_ is set or on stop
    bool has_booted_ = false;         ///< pool mutex: counted for start(): booted once, or settled
    std::uint64_t generation_ = 0;    ///< pool mutex: the group's restart generation at boot
    std::thread thread_;              ///< owned by the pool's control thread
};

}  // namespace spindle::worker
