#include "worker/slot_state.hpp"

#include <gtest/gtest.h>

namespace spindle::worker {
namespace {

constexpr slot_state all_states[] = {
    slot_state::reserved, slot_state::booting,    slot_state::ready, slot_state::busy,
    slot_state::draining, slot_state::restarting, slot_state::done};

TEST(SlotState, ClassicLifecycleIsAllowed) {
    EXPECT_TRUE(is_transition_allowed(slot_state::reserved, slot_state::booting));
    EXPECT_TRUE(is_transition_allowed(slot_state::booting, slot_state::ready));
    EXPECT_TRUE(is_transition_allowed(slot_state::ready, slot_state::busy));
    EXPECT_TRUE(is_transition_allowed(slot_state::busy, slot_state::ready));
    EXPECT_TRUE(is_transition_allowed(slot_state::ready, slot_state::draining));
    EXPECT_TRUE(is_transition_allowed(slot_state::draining, slot_state::done));
}

TEST(SlotState, FailingBootGoesThroughRestarting) {
    EXPECT_TRUE(is_transition_allowed(slot_state::booting, slot_state::restarting));
    EXPECT_TRUE(is_transition_allowed(slot_state::restarting, slot_state::booting));
    EXPECT_FALSE(is_transition_allowed(slot_state::restarting, slot_state::ready));
}

TEST(SlotState, DoneOnlyGoesBackToReserved) {
    for (slot_state to : all_states) {
        EXPECT_EQ(is_transition_allowed(slot_state::done, to), to == slot_state::reserved)
            << to_string(to);
    }
}

TEST(SlotState, NoStateLoopsOntoItself) {
    for (slot_state s : all_states) {
        EXPECT_FALSE(is_transition_allowed(s, s)) << to_string(s);
    }
}

TEST(SlotState, IdleSlotCannotSkipToDoneOrRestart) {
    // An idle slot must drain first, so a stop never races with an assignment.
    EXPECT_FALSE(is_transition_allowed(slot_state::ready, slot_state::done));
    EXPECT_FALSE(is_transition_allowed(slot_state::ready, slot_state::restarting));
    EXPECT_FALSE(is_transition_allowed(slot_state::reserved, slot_state::busy));
}

TEST(SlotState, NamesAreDistinct) {
    for (slot_state a : all_states) {
        for (slot_state b : all_states) {
            if (a != b) {
                EXPECT_NE(to_string(a), to_string(b));
            }
        }
    }
    EXPECT_EQ(to_string(slot_state::busy), "busy");
}

}  // namespace
}  // namespace spindle::worker
