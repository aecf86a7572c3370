#include "worker/recycle_policy.hpp"

#include <gtest/gtest.h>

namespace spindle::worker {
namespace {

constexpr std::size_t mib = 1024 * 1024;

sapi::memory_use holding(std::size_t held) {
    return {held / 2, held, held};
}

TEST(RecyclePolicy, NeverWhenBothAreZero) {
    const recycle_policy never;
    EXPECT_FALSE(never.due(1'000'000, holding(64 * 1024 * mib)));
}

TEST(RecyclePolicy, MaxRequestsCountsServedRequests) {
    const recycle_policy policy{3, 0};
    EXPECT_FALSE(policy.due(2, holding(mib)));
    EXPECT_EQ(policy.due(3, holding(mib)), recycle_cause::max_requests);
    EXPECT_EQ(policy.due(4, holding(mib)), recycle_cause::max_requests);
}

TEST(RecyclePolicy, MaxMemoryIsExceededOnlyAboveTheCap) {
    const recycle_policy policy{0, 64 * mib};
    EXPECT_FALSE(policy.due(1, holding(64 * mib)));
    EXPECT_EQ(policy.due(1, holding(64 * mib + 1)), recycle_cause::max_memory);
    // What decides is the heap held, not the request's peak or what is in use.
    EXPECT_FALSE(policy.due(1, sapi::memory_use{100 * mib, 200 * mib, 10 * mib}));
}

TEST(RecyclePolicy, MaxRequestsIsReportedFirstWhenBothApply) {
    const recycle_policy policy{10, mib};
    EXPECT_EQ(policy.due(10, holding(8 * mib)), recycle_cause::max_requests);
    EXPECT_EQ(policy.due(9, holding(8 * mib)), recycle_cause::max_memory);
}

TEST(RecyclePolicy, DescribesTheCause) {
    const recycle_policy policy{5, 64 * mib};
    EXPECT_EQ(policy.describe(recycle_cause::max_requests, holding(mib)),
              "served max_requests (5)");
    EXPECT_EQ(policy.describe(recycle_cause::max_memory, holding(64 * mib + 1)),
              "holds 65 MiB of PHP memory, over max_memory (64 MiB)");
    EXPECT_EQ(to_string(recycle_cause::max_memory), "max_memory");
}

}  // namespace
}  // namespace spindle::worker
