#include "worker/slot_state.hpp"

namespace spindle::worker {

std::string_view to_string(slot_state state) noexcept {
    switch (state) {
        case slot_state::reserved: return "reserved";
        case slot_state::booting: return "booting";
        case slot_state::ready: return "ready";
        case slot_state::busy: return "busy";
        case slot_state::draining: return "draining";
        case slot_state::restarting: return "restarting";
        case slot_state::done: return "done";
    }
    return "unknown";
}

bool is_transition_allowed(slot_state from, slot_state to) noexcept {
    using enum slot_state;
    switch (from) {
        case reserved: return to == booting || to == done;
        case booting:
            // A worker script that dies before its first request goes to restarting (backoff).
            return to == ready || to == restarting || to == draining || to == done;
        case ready: return to == busy || to == draining;
        case busy:
            // busy -> restarting: a worker script crashed or hit max_requests mid-request.
            return to == ready || to == draining || to == restarting;
        case draining: return to == done || to == restarting;
        case restarting: return to == booting || to == done;
        // done -> reserved: the pool joined the thread and lends the slot to a new worker
        // generation.
        case done: return to == reserved;
    }
    return false;
}

}  // namespace spindle::worker
