#pragma once

#include <string_view>

namespace spindle::worker {

/// The life of one PHP slot thread. Changed only through slot::transition(), which checks
/// every change against is_transition_allowed().
///
///   reserved -> booting -> ready <-> busy
///                  |         |        |
///                  |         v        v
///                  +----> draining -> done -> reserved (lent to a new worker generation)
///   (restarting sits between a crashed/recycled script and its next boot; worker mode)
enum class slot_state {
    reserved,    ///< created, thread not started yet
    booting,     ///< thread started, PHP context being created or worker script starting
    ready,       ///< idle, waiting for a request
    busy,        ///< running a request
    draining,    ///< asked to stop; finishing what it runs, takes nothing new
    restarting,  ///< its script ended or failed; waiting (backoff) before booting again
    done,        ///< thread ended, PHP context freed
};

/// Lower-case name, as shown in logs and the admin view.
std::string_view to_string(slot_state state) noexcept;

/// Whether the state machine permits `from` -> `to`.
bool is_transition_allowed(slot_state from, slot_state to) noexcept;

}  // namespace spindle::worker
