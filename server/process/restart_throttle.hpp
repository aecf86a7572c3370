#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <string_view>

namespace spindle::server {

/// Where the supervisor's restarts of dead server processes stand (php-fpm's
/// emergency_restart_threshold and emergency_restart_interval):
///
///   steady -> recovering -> given_up
///     ^           |
///     +-----------+   (the window holds no death any more)
///
/// given_up is final: the supervisor restarts nothing more and serves with what is left.
enum class restart_state {
    steady,      ///< no death within the window: a death is restarted at once
    recovering,  ///< deaths within the window, fewer than the threshold: still restarted
    given_up,    ///< the threshold was reached within the window: no more restarts
};

/// Lower-case name, as shown in the log and on the admin endpoint.
std::string_view to_string(restart_state state) noexcept;

/// The one transition function: the state that follows `from` once the window holds
/// `deaths_in_window` deaths. `threshold` 0 never gives up.
[[nodiscard]] restart_state next_restart_state(restart_state from, std::size_t deaths_in_window,
                                               std::size_t threshold) noexcept;

/// Counts the deaths of server processes in a sliding window and says whether the next one
/// is restarted. Supervisor's control thread only.
class restart_throttle {
  public:
    using clock = std::chrono::steady_clock;

    restart_throttle(std::size_t threshold, std::chrono::milliseconds interval) noexcept;

    /// Records a death at `now` and returns the state it leads to: the dead process is
    /// restarted unless that is given_up.
    [[nodiscard]] restart_state on_death(clock::time_point now);

    /// The state at `now` (deaths older than the window no longer count).
    [[nodiscard]] restart_state state_at(clock::time_point now);

    /// Deaths within the window as of the last call.
    std::size_t deaths_in_window() const noexcept { return deaths_.size(); }

    std::size_t threshold() const noexcept { return threshold_; }
    std::chrono::milliseconds interval() const noexcept { return interval_; }

  private:
    void forget_before(clock::time_point now);

    const std::size_t threshold_;
    const std::chrono::milliseconds interval_;
    std::deque<clock::time_point> deaths_;  ///< within the window, oldest first
    restart_state state_ = restart_state::steady;
};

}  // namespace spindle::server
