#include "sapi/cgi_status.hpp"

#include <gtest/gtest.h>

namespace spindle::sapi {
namespace {

TEST(ParseCgiStatus, CodeAndReason) {
    auto status = parse_cgi_status("404 Not Found");
    ASSERT_TRUE(status);
    EXPECT_EQ(status->code, 404);
    EXPECT_EQ(status->reason, "Not Found");

    status = parse_cgi_status("503  Back soon \t");
    ASSERT_TRUE(status);
    EXPECT_EQ(status->code, 503);
    EXPECT_EQ(status->reason, "Back soon");
}

TEST(ParseCgiStatus, CodeAloneKeepsTheUsualReason) {
    auto status = parse_cgi_status("301");
    ASSERT_TRUE(status);
    EXPECT_EQ(status->code, 301);
    EXPECT_TRUE(status->reason.empty());

    status = parse_cgi_status("200 ");
    ASSERT_TRUE(status);
    EXPECT_EQ(status->code, 200);
    EXPECT_TRUE(status->reason.empty());
}

TEST(ParseCgiStatus, AnythingButThreeDigitsOfAFinalStatusIsNoStatus) {
    for (std::string_view value : {"", "40", "4040", "404x", "abc", "OK", " 404", "-404", "100",
                                   "103 Early Hints", "099", "1e3"}) {
        EXPECT_FALSE(parse_cgi_status(value)) << value;
    }
}

}  // namespace
}  // namespace spindle::sapi
