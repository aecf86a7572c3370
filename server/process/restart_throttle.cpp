#include "server/process/restart_throttle.hpp"

namespace spindle::server {

std::string_view to_string(restart_state state) noexcept {
    switch (state) {
        case restart_state::steady: return "steady";
        case restart_state::recovering: return "recovering";
        case restart_state::given_up: return "given_up";
    }
    return "unknown";
}

restart_state next_restart_state(restart_state from, std::size_t deaths_in_window,
                                 std::size_t threshold) noexcept {
    if (from == restart_state::given_up) {
        return restart_state::given_up;
    }
    if (threshold != 0 && deaths_in_window >= threshold) {
        return restart_state::given_up;
    }
    return deaths_in_window == 0 ? restart_state::steady : restart_state::recovering;
}

restart_throttle::restart_throttle(std::size_t threshold,
                                   std::chrono::milliseconds interval) noexcept
    : threshold_(threshold), interval_(interval) {}

void restart_throttle::forget_before(clock::time_point now) {
    while (!deaths_.empty() && now - deaths_.front() >= interval_) {
        deaths_.pop_front();
    }
}

restart_state restart_throttle::on_death(clock::time_point now) {
    forget_before(now);
    deaths_.push_back(now);
    state_ = next_restart_state(state_, deaths_.size(), threshold_);
    return state_;
}

restart_state restart_throttle::state_at(clock::time_point now) {
    forget_before(now);
    state_ = next_restart_state(state_, deaths_.size(), threshold_);
    return state_;
}

}  // namespace spindle::server
