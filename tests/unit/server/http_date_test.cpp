#include "server/http/http_date.hpp"

#include <gtest/gtest.h>

namespace spindle::server {
namespace {

TEST(HttpDate, FormatsImfFixdate) {
    EXPECT_EQ(format_http_date(784111777), "Sun, 06 Nov 1994 08:49:37 GMT");
    EXPECT_EQ(format_http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
}

TEST(HttpDate, ParsesWhatItFormats) {
    for (std::time_t t : {std::time_t{0}, std::time_t{784111777}, std::time_t{1798848000}}) {
        auto parsed = parse_http_date(format_http_date(t));
        ASSERT_TRUE(parsed.has_value());
        EXPECT_EQ(*parsed, t);
    }
}

TEST(HttpDate, RejectsOtherForms) {
    EXPECT_FALSE(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"));
    EXPECT_FALSE(parse_http_date("Sun Nov  6 08:49:37 1994"));
    EXPECT_FALSE(parse_http_date("Sun, 06 Foo 1994 08:49:37 GMT"));
    EXPECT_FALSE(parse_http_date("Sun, 06 Nov 1994 08:49:37 UTC"));
    EXPECT_FALSE(parse_http_date("Sun, 0x Nov 1994 08:49:37 GMT"));
    EXPECT_FALSE(parse_http_date(""));
}

TEST(HttpDate, CurrentDateIsWellFormed) {
    auto now = current_http_date();
    EXPECT_TRUE(parse_http_date(now).has_value()) << now;
}

}  // namespace
}  // namespace spindle::server
