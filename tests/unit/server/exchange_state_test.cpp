#include "server/exchange/exchange_state.hpp"

#include <gtest/gtest.h>

#include <array>

namespace spindle::server {
namespace {

constexpr std::array all_states{exchange_state::watched, exchange_state::unwatched,
                                exchange_state::relayed, exchange_state::written,
                                exchange_state::aborted};

bool allowed(exchange_state from, exchange_state to) {
    exchange_state state = from;
    const bool moved = transition(state, to);
    // A refusal leaves the state as it was.
    EXPECT_EQ(state, moved ? to : from) << to_string(from) << " -> " << to_string(to);
    return moved;
}

TEST(ExchangeState, WhileRunningEitherSideMayBecomeTheOwner) {
    for (exchange_state from : {exchange_state::watched, exchange_state::unwatched}) {
        EXPECT_TRUE(allowed(from, exchange_state::relayed)) << to_string(from);
        EXPECT_TRUE(allowed(from, exchange_state::written)) << to_string(from);
        EXPECT_TRUE(allowed(from, exchange_state::aborted)) << to_string(from);
    }
    EXPECT_TRUE(allowed(exchange_state::watched, exchange_state::unwatched));
    EXPECT_FALSE(allowed(exchange_state::unwatched, exchange_state::watched));
}

TEST(ExchangeState, ARelayedResponseCanOnlyBeAborted) {
    for (exchange_state to : all_states) {
        EXPECT_EQ(allowed(exchange_state::relayed, to), to == exchange_state::aborted)
            << to_string(to);
    }
}

TEST(ExchangeState, WrittenAndAbortedAreFinal) {
    for (exchange_state to : all_states) {
        EXPECT_FALSE(allowed(exchange_state::written, to)) << to_string(to);
        EXPECT_FALSE(allowed(exchange_state::aborted, to)) << to_string(to);
    }
}

TEST(ExchangeState, EveryStateHasAName) {
    for (exchange_state state : all_states) {
        EXPECT_NE(to_string(state), "unknown");
    }
}

}  // namespace
}  // namespace spindle::server
