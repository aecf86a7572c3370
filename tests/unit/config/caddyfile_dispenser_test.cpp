#include "config/caddyfile_dispenser.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/caddyfile_lexer.hpp"
#include "config/config_error.hpp"

namespace spindle::config::caddyfile {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr const char* two_levels =
    "a.test {\n"
    "\tphp_server /app {\n"         // 2
    "\t\troot /srv/public\n"        // 3
    "\t\tworker {\n"                // 4
    "\t\t\tfile index.php\n"        // 5
    "\t\t\tnum 4\n"                 // 6
    "\t\t}\n"                       // 7
    "\t\tenv APP_ENV \"prod x\"\n"  // 8
    "\t}\n"                         // 9
    "}\n";

/// The first directive of the first block, as an adapter gets it.
dispenser first_segment(const std::string& text) {
    const std::vector<server_block> blocks = parse(text, "Caddyfile", {}, {});
    EXPECT_FALSE(blocks.empty());
    EXPECT_FALSE(blocks.front().segments.empty());
    return dispenser(blocks.front().segments.front().tokens);
}

TEST(CaddyfileDispenser, WalksATwoLevelBlock) {
    dispenser d = first_segment(two_levels);
    EXPECT_EQ(d.val(), "");
    ASSERT_TRUE(d.next());
    EXPECT_EQ(d.val(), "php_server");
    ASSERT_TRUE(d.next_arg());
    EXPECT_EQ(d.val(), "/app");
    // The block's brace is no argument.
    EXPECT_FALSE(d.next_is_arg());
    EXPECT_FALSE(d.next_arg());
    EXPECT_EQ(d.val(), "/app");

    const std::size_t outer = d.nesting();
    EXPECT_EQ(outer, 0u);
    ASSERT_TRUE(d.next_block(outer));
    EXPECT_EQ(d.val(), "root");
    EXPECT_EQ(d.current().line, 3u);
    EXPECT_EQ(d.nesting(), 1u);
    EXPECT_THAT(d.remaining_args(), ElementsAre("/srv/public"));

    ASSERT_TRUE(d.next_block(outer));
    EXPECT_EQ(d.val(), "worker");
    const std::size_t inner = d.nesting();
    EXPECT_EQ(inner, 1u);
    ASSERT_TRUE(d.next_block(inner));
    EXPECT_EQ(d.val(), "file");
    EXPECT_EQ(d.nesting(), 2u);
    ASSERT_TRUE(d.next_arg());
    EXPECT_EQ(d.val(), "index.php");
    EXPECT_FALSE(d.next_arg());
    ASSERT_TRUE(d.next_block(inner));
    EXPECT_EQ(d.val(), "num");
    EXPECT_THAT(d.remaining_args(), ElementsAre("4"));
    EXPECT_FALSE(d.next_block(inner));
    EXPECT_EQ(d.val(), "}");
    EXPECT_EQ(d.current().line, 7u);
    EXPECT_EQ(d.nesting(), 1u);

    ASSERT_TRUE(d.next_block(outer));
    EXPECT_EQ(d.val(), "env");
    EXPECT_THAT(d.remaining_args(), ElementsAre("APP_ENV", "prod x"));
    EXPECT_FALSE(d.next_block(outer));
    EXPECT_EQ(d.val(), "}");
    EXPECT_EQ(d.current().line, 9u);
    EXPECT_EQ(d.nesting(), 0u);
    EXPECT_FALSE(d.next());
    EXPECT_EQ(d.val(), "}");
}

TEST(CaddyfileDispenser, NextBlockPassesOverUnreadArgumentsAndNestedBlocks) {
    dispenser d = first_segment(two_levels);
    ASSERT_TRUE(d.next());
    std::vector<std::string> directives;
    for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
        directives.push_back(d.val() + "@" + std::to_string(d.current().line));
    }
    EXPECT_THAT(directives, ElementsAre("root@3", "worker@4", "env@8"));
    EXPECT_EQ(d.nesting(), 0u);
}

TEST(CaddyfileDispenser, NextBlockNeedsALineEndingInABrace) {
    dispenser d = first_segment("a.test {\n\troot * /srv\n}");
    ASSERT_TRUE(d.next());
    EXPECT_FALSE(d.next_block(0));
    EXPECT_EQ(d.val(), "root");
    EXPECT_EQ(d.nesting(), 0u);
    EXPECT_THAT(d.remaining_args(), ElementsAre("*", "/srv"));

    dispenser empty = first_segment("a.test {\n\tphp_server {\n\t}\n}");
    ASSERT_TRUE(empty.next());
    EXPECT_FALSE(empty.next_block(0));
    EXPECT_EQ(empty.val(), "}");
    EXPECT_EQ(empty.nesting(), 0u);
}

TEST(CaddyfileDispenser, ArgumentsStopAtTheEndOfTheLine) {
    dispenser d(
        lex("respond \"{\" <<EOF\n  body\n  EOF 200 \\\n  close\nnext {\n}", "Caddyfile", {}));
    ASSERT_TRUE(d.next());
    // A quoted brace is an argument; the heredoc and a continued line stay on the line.
    EXPECT_THAT(d.remaining_args(), ElementsAre("{", "body", "200", "close"));
    EXPECT_FALSE(d.next_is_arg());
    ASSERT_TRUE(d.next());
    EXPECT_EQ(d.val(), "next");
    EXPECT_EQ(d.current().line, 5u);
    EXPECT_THAT(d.remaining_args(), IsEmpty());
}

TEST(CaddyfileDispenser, LinesOfDifferentFilesAreDifferentLines) {
    token a;
    a.text = "a";
    a.file = "one.caddy";
    a.line = 3;
    token b = a;
    b.text = "b";
    b.file = "two.caddy";
    dispenser d({a, b});
    ASSERT_TRUE(d.next());
    EXPECT_FALSE(d.next_arg());
    ASSERT_TRUE(d.next());
    EXPECT_EQ(d.current().file, "two.caddy");
}

TEST(CaddyfileDispenser, ReportsErrorsAtTheCurrentToken) {
    dispenser d = first_segment(two_levels);
    // Before the first token: the segment's first place.
    EXPECT_STREQ(d.error("too early").what(), "Caddyfile:2: too early");
    EXPECT_EQ(d.current().line, 0u);
    ASSERT_TRUE(d.next());
    ASSERT_TRUE(d.next_block(d.nesting()));
    ASSERT_TRUE(d.next_block(0));
    ASSERT_TRUE(d.next_block(1));
    const config_error error = d.error("unknown worker option \"file\"");
    EXPECT_STREQ(error.what(), "Caddyfile:5: unknown worker option \"file\"");
    EXPECT_EQ(error.message(), "unknown worker option \"file\"");
    EXPECT_EQ(error.line(), 5u);
    ASSERT_TRUE(d.next_arg());
    EXPECT_STREQ(d.arg_error().what(),
                 "Caddyfile:5: wrong argument count or unexpected line ending after "
                 "'index.php'");

    dispenser none(std::vector<token>{});
    EXPECT_FALSE(none.next());
    EXPECT_FALSE(none.next_arg());
    EXPECT_FALSE(none.next_block(0));
    EXPECT_EQ(none.val(), "");
    EXPECT_STREQ(none.error("empty").what(), "empty");
}

}  // namespace
}  // namespace spindle::config::caddyfile
