#include "server/http/header_rules.hpp"

#include <gtest/gtest.h>

namespace spindle::server {
namespace {

using config::header_rule;

constexpr const char* head =
    "HTTP/1.1 200 OK\r\nServer: Spindle\r\nX-A: 1\r\nx-a: 2\r\nContent-Length: 3\r\n\r\n";

TEST(HeaderRules, NoRulesLeaveTheHeadAlone) {
    std::string text = head;
    apply_header_rules(text, {});
    EXPECT_EQ(text, head);
}

TEST(HeaderRules, SetReplacesEveryFieldOfThatName) {
    std::string text = head;
    apply_header_rules(text, {{header_rule::op::set, "X-A", "9"}});
    EXPECT_EQ(text, "HTTP/1.1 200 OK\r\nServer: Spindle\r\nContent-Length: 3\r\nX-A: 9\r\n\r\n");
}

TEST(HeaderRules, AddKeepsExistingFields) {
    std::string text = head;
    apply_header_rules(text, {{header_rule::op::add, "x-a", "3"}});
    EXPECT_EQ(text,
              "HTTP/1.1 200 OK\r\nServer: Spindle\r\nX-A: 1\r\nx-a: 2\r\nContent-Length: "
              "3\r\nx-a: 3\r\n\r\n");
}

TEST(HeaderRules, RemoveDropsFieldsCaseInsensitively) {
    std::string text = head;
    apply_header_rules(
        text, {{header_rule::op::remove, "X-a", ""}, {header_rule::op::remove, "server", ""}});
    EXPECT_EQ(text, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n");
}

TEST(HeaderRules, KeepsABodyOutOfTheHead) {
    std::string text = "HTTP/1.1 404 Not Found\r\n\r\n";
    apply_header_rules(text, {{header_rule::op::set, "X-Frame-Options", "DENY"}});
    EXPECT_EQ(text, "HTTP/1.1 404 Not Found\r\nX-Frame-Options: DENY\r\n\r\n");
}

}  // namespace
}  // namespace spindle::server
