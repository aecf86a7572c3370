#include "server/http/http1_head.hpp"

#include <gtest/gtest.h>

#include <string>

namespace spindle::server {
namespace {

TEST(Http1Head, StatusLineUsesTheStandardReasonUnlessGivenOne) {
    EXPECT_EQ(http1_head(404).finish(), "HTTP/1.1 404 Not Found\r\n\r\n");
    EXPECT_EQ(http1_head(418, "I'm a teapot").finish(), "HTTP/1.1 418 I'm a teapot\r\n\r\n");
    EXPECT_EQ(http1_head(103).status(), 103);
}

TEST(Http1Head, FieldsFramingAndConnectionInOrder) {
    http1_head head(200);
    head.server().field("Content-Type", "text/plain").lines("X-A: 1\r\n").content_length(12);
    head.connection(true, 11);
    EXPECT_EQ(head.finish(),
              "HTTP/1.1 200 OK\r\nServer: Spindle\r\nContent-Type: text/plain\r\nX-A: 1\r\n"
              "Content-Length: 12\r\n\r\n");
}

TEST(Http1Head, ConnectionSaysWhatTheClientVersionNeeds) {
    EXPECT_EQ(http1_head(200).connection(false, 11).finish(),
              "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(http1_head(200).connection(true, 10).finish(),
              "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n\r\n");
    EXPECT_EQ(http1_head(200).connection(true, 11).finish(), "HTTP/1.1 200 OK\r\n\r\n");
}

TEST(Http1Head, DateIsAnImfFixdate) {
    const std::string head = http1_head(204).date().finish();
    // "Date: Sun, 06 Nov 1994 08:49:37 GMT"
    const auto at = head.find("\r\nDate: ");
    ASSERT_NE(at, std::string::npos) << head;
    EXPECT_EQ(head.find("\r\n", at + 2) - (at + 8), 29u) << head;
    EXPECT_NE(head.find(" GMT\r\n"), std::string::npos) << head;
}

TEST(Http1Head, SiteHeaderRulesApplyToTheFinishedHead) {
    std::vector<config::header_rule> rules(1);
    rules[0].operation = config::header_rule::op::set;
    rules[0].name = "Server";
    rules[0].value = "edge";
    EXPECT_EQ(http1_head(200).server().content_length(0).finish(&rules),
              "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nServer: edge\r\n\r\n");
}

}  // namespace
}  // namespace spindle::server
