#include "server/routing/path_matcher.hpp"

#include <gtest/gtest.h>

namespace spindle::server {
namespace {

TEST(PathMatcher, ExactPathsMatchOnlyThemselves) {
    EXPECT_TRUE(path_matches("/health", "/health"));
    EXPECT_FALSE(path_matches("/health", "/health/"));
    EXPECT_FALSE(path_matches("/health", "/healthz"));
    EXPECT_FALSE(path_matches("/health", "/"));
}

TEST(PathMatcher, PrefixSuffixAndInfix) {
    EXPECT_TRUE(path_matches("/api/*", "/api/users/1"));
    EXPECT_TRUE(path_matches("/api/*", "/api/"));
    EXPECT_FALSE(path_matches("/api/*", "/api"));
    EXPECT_TRUE(path_matches("*.json", "/a/b.json"));
    EXPECT_FALSE(path_matches("*.json", "/a/b.json/x"));
    EXPECT_TRUE(path_matches("/a/*/edit", "/a/42/edit"));
    EXPECT_TRUE(path_matches("/a/*/edit", "/a/1/2/edit"));
    EXPECT_FALSE(path_matches("/a/*/edit", "/a/42/edit/x"));
    EXPECT_TRUE(path_matches("*", "/anything"));
    EXPECT_TRUE(path_matches("*", ""));
}

TEST(PathMatcher, IgnoresCase) {
    EXPECT_TRUE(path_matches("/API/*", "/api/x"));
    EXPECT_TRUE(path_matches("*.JSON", "/x.json"));
}

TEST(PathMatcher, BacktracksAfterAPartialMatch) {
    EXPECT_TRUE(path_matches("*ab", "/aab"));
    EXPECT_TRUE(path_matches("/*/*.php", "/x/y/z.php"));
    EXPECT_FALSE(path_matches("*ab", "/aba"));
}

}  // namespace
}  // namespace spindle::server
