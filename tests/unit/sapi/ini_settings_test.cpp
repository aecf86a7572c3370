#include "sapi/ini_settings.hpp"

#include <gtest/gtest.h>

#include <string>

namespace spindle::sapi {
namespace {

std::string entry(std::string_view name, std::string_view value) {
    std::string entries;
    append_ini_entry(entries, name, value);
    return entries;
}

TEST(AppendIniEntry, ExpressionsConstantsAndWordsGoInAsWritten) {
    EXPECT_EQ(entry("error_reporting", "E_ALL & ~E_NOTICE"), "error_reporting=E_ALL & ~E_NOTICE\n");
    EXPECT_EQ(entry("error_reporting", "(E_ALL|E_STRICT)^E_DEPRECATED"),
              "error_reporting=(E_ALL|E_STRICT)^E_DEPRECATED\n");
    EXPECT_EQ(entry("display_errors", "Off"), "display_errors=Off\n");
    EXPECT_EQ(entry("memory_limit", "-1"), "memory_limit=-1\n");
    EXPECT_EQ(entry("memory_limit", "256M"), "memory_limit=256M\n");
    EXPECT_EQ(entry("session.cache_limiter", ""), "session.cache_limiter=\n");
}

TEST(AppendIniEntry, OtherValuesAreQuotedStrings) {
    EXPECT_EQ(entry("error_log", "/var/log/php errors.log"),
              "error_log=\"/var/log/php errors.log\"\n");
    EXPECT_EQ(entry("session.save_path", "tcp://h:6379?auth=a;b"),
              "session.save_path=\"tcp://h:6379?auth=a;b\"\n");
    EXPECT_EQ(entry("precision", "0.5"), "precision=\"0.5\"\n");
    EXPECT_EQ(entry("date.timezone", "Europe/Paris"), "date.timezone=\"Europe/Paris\"\n");
    // A newline stays inside the quotes instead of starting another directive.
    EXPECT_EQ(entry("x", "a\nzend_extension=evil.so"), "x=\"a\nzend_extension=evil.so\"\n");
}

TEST(AppendIniEntry, NoneStaysTheWord) {
    // php.ini would read a bare None as "": SameSite=None would silently go.
    EXPECT_EQ(entry("session.cookie_samesite", "None"), "session.cookie_samesite=\"None\"\n");
    EXPECT_EQ(entry("x", "none"), "x=\"none\"\n");
    EXPECT_EQ(entry("x", "Nonetheless"), "x=Nonetheless\n");
}

TEST(AppendIniEntry, AValueTheUserQuotedIsLeftAlone) {
    EXPECT_EQ(entry("user_agent", "\"Mozilla/5.0\""), "user_agent=\"Mozilla/5.0\"\n");
    EXPECT_EQ(entry("x", "'single'"), "x='single'\n");
}

}  // namespace
}  // namespace spindle::sapi
