#include "server/process/signal_safe_writer.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <ctime>
#include <functional>
#include <limits>
#include <string>

namespace spindle::server {
namespace {

// What `write` puts through a writer on a pipe (the writer flushes as it goes out of scope).
std::string written(const std::function<void(signal_safe_writer&)>& write) {
    int ends[2];
    EXPECT_EQ(pipe(ends), 0);
    {
        signal_safe_writer out(ends[1]);
        write(out);
    }
    close(ends[1]);
    std::string text;
    char chunk[4096];
    ssize_t got = 0;
    while ((got = read(ends[0], chunk, sizeof chunk)) > 0) {
        text.append(chunk, static_cast<std::size_t>(got));
    }
    close(ends[0]);
    return text;
}

TEST(SignalSafeWriter, FormatsNumbers) {
    EXPECT_EQ(written([](auto& out) { out.decimal(0); }), "0");
    EXPECT_EQ(written([](auto& out) { out.decimal(1207); }), "1207");
    EXPECT_EQ(written([](auto& out) { out.decimal(7, 3); }), "007");
    EXPECT_EQ(written([](auto& out) { out.decimal(12345, 3); }), "12345");
    EXPECT_EQ(written([](auto& out) { out.decimal(std::numeric_limits<std::uint64_t>::max()); }),
              "18446744073709551615");
    EXPECT_EQ(written([](auto& out) { out.signed_decimal(-42); }), "-42");
    EXPECT_EQ(
        written([](auto& out) { out.signed_decimal(std::numeric_limits<std::int64_t>::min()); }),
        "-9223372036854775808");
    EXPECT_EQ(written([](auto& out) { out.hex(0); }), "0x0");
    EXPECT_EQ(written([](auto& out) { out.hex(0x7f3a00c0ffeeULL); }), "0x7f3a00c0ffee");
    EXPECT_EQ(written([](auto& out) { out.hex(std::numeric_limits<std::uintptr_t>::max()); }),
              "0x" + std::string(2 * sizeof(std::uintptr_t), 'f'));
}

TEST(SignalSafeWriter, KeepsAConsoleLineOneLine) {
    EXPECT_EQ(written([](auto& out) { out.printable("/a?b=c\r\nX-Evil: 1\x7f\x01"); }),
              "/a?b=c??X-Evil: 1??");
    // Bytes above 0x7f (UTF-8) stay.
    EXPECT_EQ(written([](auto& out) { out.printable("/caf\xc3\xa9"); }), "/caf\xc3\xa9");
}

TEST(SignalSafeWriter, EscapesJsonStrings) {
    EXPECT_EQ(written([](auto& out) { out.json_escaped(R"(say "hi" \ bye)"); }),
              R"(say \"hi\" \\ bye)");
    EXPECT_EQ(written([](auto& out) { out.json_escaped("a\nb\tc\x1f"); }),
              "a\\u000ab\\u0009c\\u001f");
    EXPECT_EQ(written([](auto& out) { out.json_escaped("\xc3\xa9"); }), "\xc3\xa9");
}

TEST(SignalSafeWriter, WritesMoreThanItsBufferInOrder) {
    std::string expected;
    for (int i = 0; i < 3000; ++i) {
        expected += std::to_string(i) + ",";
    }
    EXPECT_EQ(written([](auto& out) {
                  for (int i = 0; i < 3000; ++i) {
                      out.decimal(static_cast<std::uint64_t>(i)).text(",");
                  }
              }),
              expected);
}

TEST(SignalSafeWriter, TimestampsAsTheLogLines) {
    // 2026-12-06 05:30:07.123 UTC.
    constexpr std::int64_t seconds = 1'796'535'007;
    EXPECT_EQ(written([](auto& out) { out.timestamp(seconds, 123'456'789, 0, false); }),
              "2026-12-06 05:30:07.123");
    EXPECT_EQ(written([](auto& out) { out.timestamp(seconds, 5'000'000, 0, true); }),
              "2026-12-06T05:30:07.005+0000");
    EXPECT_EQ(written([](auto& out) { out.timestamp(seconds, 0, 3600 + 1800, true); }),
              "2026-12-06T07:00:07.000+0130");
    EXPECT_EQ(written([](auto& out) { out.timestamp(seconds, 0, -8 * 3600, true); }),
              "2026-12-05T21:30:07.000-0800");
}

TEST(CivilTime, MatchesTheCalendar) {
    const civil_time epoch = to_civil_time(0);
    EXPECT_EQ(epoch.year, 1970);
    EXPECT_EQ(epoch.month, 1);
    EXPECT_EQ(epoch.day, 1);
    // A leap day and the second before the next day.
    const civil_time leap = to_civil_time(951'868'799);  // 2000-02-29 23:59:59
    EXPECT_EQ(leap.year, 2000);
    EXPECT_EQ(leap.month, 2);
    EXPECT_EQ(leap.day, 29);
    EXPECT_EQ(leap.hour, 23);
    EXPECT_EQ(leap.minute, 59);
    EXPECT_EQ(leap.second, 59);
    const civil_time march = to_civil_time(951'868'800);
    EXPECT_EQ(march.month, 3);
    EXPECT_EQ(march.day, 1);
    // Before 1970: the time of day still counts forward from midnight.
    const civil_time before = to_civil_time(-1);
    EXPECT_EQ(before.year, 1969);
    EXPECT_EQ(before.month, 12);
    EXPECT_EQ(before.day, 31);
    EXPECT_EQ(before.hour, 23);
    EXPECT_EQ(before.second, 59);
}

TEST(CivilTime, AgreesWithGmtimeOverFourHundredYears) {
    // One sample every 9 days and 7 hours from 1900 to 2300: every month, leap rule and hour.
    for (std::int64_t t = -2'208'988'800; t < 10'413'792'000; t += 9 * 86'400 + 7 * 3'600 + 13) {
        const std::time_t value = static_cast<std::time_t>(t);
        std::tm expected{};
        ASSERT_NE(gmtime_r(&value, &expected), nullptr);
        const civil_time got = to_civil_time(t);
        ASSERT_EQ(got.year, expected.tm_year + 1900) << t;
        ASSERT_EQ(got.month, expected.tm_mon + 1) << t;
        ASSERT_EQ(got.day, expected.tm_mday) << t;
        ASSERT_EQ(got.hour, expected.tm_hour) << t;
        ASSERT_EQ(got.minute, expected.tm_min) << t;
        ASSERT_EQ(got.second, expected.tm_sec) << t;
    }
}

}  // namespace
}  // namespace spindle::server
