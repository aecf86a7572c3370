#include "server/exchange/exchange_state.hpp"

namespace spindle::server {

std::string_view to_string(exchange_state state) noexcept {
    switch (state) {
        case exchange_state::watched: return "watched";
        case exchange_state::unwatched: return "unwatched";
        case exchange_state::relayed: return "relayed";
        case exchange_state::written: return "written";
        case exchange_state::aborted: return "aborted";
    }
    return "unknown";
}

namespace {

bool is_allowed(exchange_state from, exchange_state to) noexcept {
    using s = exchange_state;
    switch (from) {
        case s::watched:
            return to == s::unwatched || to == s::relayed || to == s::written || to == s::aborted;
        case s::unwatched: return to == s::relayed || to == s::written || to == s::aborted;
        case s::relayed: return to == s::aborted;
        case s::written:
        case s::aborted: return false;
    }
    return false;
}

}  // namespace

bool transition(exchange_state& state, exchange_state to) noexcept {
    if (!is_allowed(state, to)) {
        return false;
    }
    state = to;
    return true;
}

}  // namespace spindle::server
