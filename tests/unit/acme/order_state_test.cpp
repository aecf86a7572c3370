#include "acme/order_state.hpp"

#include <gtest/gtest.h>

namespace spindle::acme {
namespace {

using p = order_phase;
using e = order_event;

TEST(OrderState, HappyPathFromPendingToDone) {
    p phase = p::authorizing;
    phase = transition(phase, e::pending);
    EXPECT_EQ(phase, p::authorizing);
    phase = transition(phase, e::ready);
    EXPECT_EQ(phase, p::finalizing);
    phase = transition(phase, e::processing);
    EXPECT_EQ(phase, p::processing);
    phase = transition(phase, e::processing);
    EXPECT_EQ(phase, p::processing);
    phase = transition(phase, e::valid);
    EXPECT_EQ(phase, p::downloading);
    phase = transition(phase, e::downloaded);
    EXPECT_EQ(phase, p::done);
}

TEST(OrderState, ReusedAuthorizationsAndImmediateIssuanceSkipSteps) {
    // A CA that remembers valid authorizations answers the new order "ready" at once; one
    // that issues synchronously answers the finalize "valid".
    EXPECT_EQ(transition(p::authorizing, e::ready), p::finalizing);
    EXPECT_EQ(transition(p::finalizing, e::valid), p::downloading);
    EXPECT_EQ(transition(p::authorizing, e::valid), p::downloading);
}

TEST(OrderState, InvalidFailsFromEveryPhase) {
    for (p phase : {p::authorizing, p::finalizing, p::processing, p::downloading, p::done}) {
        EXPECT_EQ(transition(phase, e::invalid), p::failed) << to_string(phase);
    }
}

TEST(OrderState, OutOfTurnAnswersFailInsteadOfLooping) {
    EXPECT_EQ(transition(p::finalizing, e::pending), p::failed);
    EXPECT_EQ(transition(p::processing, e::pending), p::failed);
    EXPECT_EQ(transition(p::downloading, e::valid), p::failed);
    EXPECT_EQ(transition(p::authorizing, e::downloaded), p::failed);
    EXPECT_EQ(transition(p::done, e::valid), p::failed);
    EXPECT_EQ(transition(p::failed, e::ready), p::failed);
}

TEST(OrderState, StatusTextMapsToEvents) {
    EXPECT_EQ(order_event_from_status("pending"), e::pending);
    EXPECT_EQ(order_event_from_status("ready"), e::ready);
    EXPECT_EQ(order_event_from_status("processing"), e::processing);
    EXPECT_EQ(order_event_from_status("valid"), e::valid);
    EXPECT_EQ(order_event_from_status("invalid"), e::invalid);
    EXPECT_FALSE(order_event_from_status("downloaded"));
    EXPECT_FALSE(order_event_from_status("bogus"));
}

}  // namespace
}  // namespace spindle::acme
