#include "worker/slot.hpp"

#include <spdlog/spdlog.h>

namespace spindle::worker {

bool slot::transition(slot_state to) noexcept {
    slot_state from = state_.load(std::memory_order_acquire);
    if (!is_transition_allowed(from, to)) {
        spdlog::get("worker")->error("slot {}: refused state change {} -> {}", index_,
                                     to_string(from), to_string(to));
        return false;
    }
    state_.store(to, std::memory_order_release);
    spdlog::get("worker")->trace("slot {}: {} -> {}", index_, to_string(from), to_string(to));
    return true;
}

}  // namespace spindle::worker
