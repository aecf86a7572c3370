#include "server/http/http2_head.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/static/static_response.hpp"

namespace spindle::server {
namespace {

std::vector<std::string> flat(const response_head& head) {
    std::vector<std::string> out;
    for (const head_field& f : head.fields) {
        out.push_back(f.name + ": " + f.value);
    }
    return out;
}

TEST(Http2Head, NamesGoInLowerCaseAndConnectionFieldsAreDropped) {
    http2_head head(200);
    head.field("Content-Type", "text/html")
        .field("Connection", "close")
        .field("Keep-Alive", "timeout=5")
        .field("Transfer-Encoding", "chunked")
        .field("Upgrade", "websocket")
        .field("Proxy-Connection", "keep-alive")
        .field("X-Powered-By", "PHP")
        .server()
        .content_length(12);
    const response_head out = head.finish();
    EXPECT_EQ(out.status, 200);
    EXPECT_EQ(flat(out), (std::vector<std::string>{"content-type: text/html", "x-powered-by: PHP",
                                                   "server: Spindle", "content-length: 12"}));
}

TEST(Http2Head, HeaderRulesSetAddAndRemoveByNameInAnyCase) {
    http2_head head(404);
    head.field("X-Frame-Options", "ALLOW").field("Server", "Apache").field("Vary", "Cookie");
    const std::vector<config::header_rule> rules = {
        {config::header_rule::op::set, "x-frame-options", "DENY"},
        {config::header_rule::op::remove, "SERVER", ""},
        {config::header_rule::op::add, "Vary", "Accept"},
    };
    EXPECT_EQ(flat(head.finish(&rules)),
              (std::vector<std::string>{"vary: Cookie", "x-frame-options: DENY", "vary: Accept"}));
}

TEST(Http2Head, InterimHeadsKeepTheirStatus) {
    http2_head head(103);
    head.field("Link", "</style.css>; rel=preload; as=style");
    const response_head out = head.finish();
    EXPECT_EQ(out.status, 103);
    EXPECT_EQ(flat(out), std::vector<std::string>{"link: </style.css>; rel=preload; as=style"});
}

TEST(StaticResponse, FieldLinesOfAHandOffBecomeFields) {
    const std::vector<head_field> fields =
        parse_field_lines("Content-Disposition: attachment\r\nX-A:\t 1\r\nbroken\r\nX-B: 2\r\n");
    ASSERT_EQ(fields.size(), 3u);
    EXPECT_EQ(fields[0].name, "Content-Disposition");
    EXPECT_EQ(fields[0].value, "attachment");
    EXPECT_EQ(fields[1].value, "1");
    EXPECT_EQ(fields[2].name, "X-B");
}

}  // namespace
}  // namespace spindle::server
