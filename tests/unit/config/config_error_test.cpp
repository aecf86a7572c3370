#include "config/config_error.hpp"

#include <gtest/gtest.h>

namespace spindle::config {
namespace {

TEST(ConfigError, WhatIsTheMessageWithoutFile) {
    const config_error error("unknown flag --foo");
    EXPECT_STREQ(error.what(), "unknown flag --foo");
    EXPECT_EQ(error.message(), "unknown flag --foo");
    EXPECT_FALSE(error.file().has_value());
    EXPECT_EQ(error.line(), 0u);
}

TEST(ConfigError, WhatIsPrefixedWithFileAndLine) {
    const config_error error("unclosed block", "Caddyfile", 12);
    EXPECT_STREQ(error.what(), "Caddyfile:12: unclosed block");
    EXPECT_EQ(error.message(), "unclosed block");
    EXPECT_EQ(error.file(), "Caddyfile");
    EXPECT_EQ(error.line(), 12u);
}

TEST(ConfigError, WhatNamesOnlyTheFileWhenLineIsZero) {
    const config_error error("cannot read", "/etc/spindle/Caddyfile", 0);
    EXPECT_STREQ(error.what(), "/etc/spindle/Caddyfile: cannot read");
}

TEST(ConfigError, IsARuntimeError) {
    EXPECT_THROW(throw config_error("bad"), std::runtime_error);
}

}  // namespace
}  // namespace spindle::config
