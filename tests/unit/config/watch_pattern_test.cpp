#include "config/watch_pattern.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace spindle::config {
namespace {

using ::testing::ElementsAre;

TEST(WatchPattern, FrankenPhpDefaultIsRecursiveWithAlternatives) {
    const watch_pattern p = parse_watch_pattern("./**/*.{php,yaml,yml,twig,env}", "/srv/app");
    EXPECT_EQ(p.directory, "/srv/app");
    EXPECT_TRUE(p.recursive);
    EXPECT_THAT(p.names, ElementsAre("*.php", "*.yaml", "*.yml", "*.twig", "*.env"));
    EXPECT_TRUE(matches(p, "/srv/app/index.php"));
    EXPECT_TRUE(matches(p, "/srv/app/src/Controller/Home.php"));
    EXPECT_TRUE(matches(p, "/srv/app/config/services.yaml"));
    EXPECT_FALSE(matches(p, "/srv/app/public/app.css"));
    EXPECT_FALSE(matches(p, "/srv/application/index.php"));
    EXPECT_FALSE(matches(p, "/srv/index.php"));
}

TEST(WatchPattern, OneDirectoryOnly) {
    const watch_pattern p = parse_watch_pattern("/srv/app/config/*.php", "/elsewhere");
    EXPECT_EQ(p.directory, "/srv/app/config");
    EXPECT_FALSE(p.recursive);
    EXPECT_TRUE(matches(p, "/srv/app/config/app.php"));
    EXPECT_FALSE(matches(p, "/srv/app/config/packages/app.php"));
}

TEST(WatchPattern, ExactFileAndWholeDirectory) {
    const watch_pattern file = parse_watch_pattern(".env", "/srv/app");
    EXPECT_EQ(file.directory, "/srv/app");
    EXPECT_TRUE(matches(file, "/srv/app/.env"));
    EXPECT_FALSE(matches(file, "/srv/app/.env.local"));

    const watch_pattern everything = parse_watch_pattern("src/**", "/srv/app");
    EXPECT_EQ(everything.directory, "/srv/app/src");
    EXPECT_TRUE(matches(everything, "/srv/app/src/a/b/c.txt"));

    const watch_pattern folder = parse_watch_pattern("templates/", "/srv/app");
    EXPECT_EQ(folder.directory, "/srv/app/templates");
    EXPECT_TRUE(matches(folder, "/srv/app/templates/base.twig"));
    EXPECT_FALSE(matches(folder, "/srv/app/templates/emails/welcome.twig"));
}

TEST(WatchPattern, AlternativesMultiply) {
    EXPECT_THAT(expand_alternatives("{a,b}.{x,y}"), ElementsAre("a.x", "a.y", "b.x", "b.y"));
    EXPECT_THAT(expand_alternatives("plain"), ElementsAre("plain"));
    EXPECT_THROW(expand_alternatives("*.{php"), std::invalid_argument);
}

TEST(WatchPattern, WildcardsOutsideTheFileNameAreRefused) {
    EXPECT_THROW(parse_watch_pattern("src/*/config.php", "/srv"), std::invalid_argument);
    EXPECT_THROW(parse_watch_pattern("src/**/x/*.php", "/srv"), std::invalid_argument);
    EXPECT_THROW(parse_watch_pattern("src/**.php", "/srv"), std::invalid_argument);
    EXPECT_THROW(parse_watch_pattern("", "/srv"), std::invalid_argument);
}

}  // namespace
}  // namespace spindle::config
