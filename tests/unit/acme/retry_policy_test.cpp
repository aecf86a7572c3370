#include "acme/retry_policy.hpp"

#include <gtest/gtest.h>

#include <ctime>

namespace spindle::acme {
namespace {

using std::chrono::seconds;

TEST(RetryPolicy, DoublesFromTheFirstDelayUpToTheMost) {
    EXPECT_EQ(retry_delay(1, seconds(5), seconds(3600), std::nullopt), seconds(5));
    EXPECT_EQ(retry_delay(2, seconds(5), seconds(3600), std::nullopt), seconds(10));
    EXPECT_EQ(retry_delay(3, seconds(5), seconds(3600), std::nullopt), seconds(20));
    EXPECT_EQ(retry_delay(10, seconds(5), seconds(3600), std::nullopt), seconds(2560));
    EXPECT_EQ(retry_delay(11, seconds(5), seconds(3600), std::nullopt), seconds(3600));
    EXPECT_EQ(retry_delay(1000, seconds(5), seconds(3600), std::nullopt), seconds(3600));
}

TEST(RetryPolicy, ARateLimitsRetryAfterIsNeverCutShort) {
    // Let's Encrypt's 429 says when the limit lifts: waiting less only earns another 429.
    EXPECT_EQ(retry_delay(1, seconds(5), seconds(3600), seconds(7200)), seconds(7200));
    EXPECT_EQ(retry_delay(3, seconds(5), seconds(3600), seconds(2)), seconds(20));
}

TEST(RetryPolicy, ReadsRetryAfterSecondsAndDates) {
    EXPECT_EQ(parse_retry_after("120"), seconds(120));
    EXPECT_EQ(parse_retry_after("0"), seconds(0));
    EXPECT_FALSE(parse_retry_after(""));
    EXPECT_FALSE(parse_retry_after("soon"));
    EXPECT_FALSE(parse_retry_after("-5"));
    // A date in the past means now.
    EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), seconds(0));
    const std::time_t later = std::time(nullptr) + 600;
    std::tm tm{};
    gmtime_r(&later, &tm);
    char text[64];
    std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    const auto wait = parse_retry_after(text);
    ASSERT_TRUE(wait);
    EXPECT_GE(wait->count(), 598);
    EXPECT_LE(wait->count(), 600);
}

}  // namespace
}  // namespace spindle::acme
