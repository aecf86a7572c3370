#include "config/units.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>

#include "config/config_error.hpp"

namespace spindle::config {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

/// The message of the config_error that parse throws for text; fails the test if none.
template <typename Parse>
std::string error_of(Parse parse, std::string_view text) {
    try {
        parse(text);
    } catch (const config_error& error) {
        return error.what();
    }
    ADD_FAILURE() << "no config_error for \"" << text << "\"";
    return {};
}

std::string duration_error(std::string_view text) {
    return error_of(parse_duration, text);
}
std::string size_error(std::string_view text) {
    return error_of(parse_size, text);
}

TEST(ParseDuration, ReadsSingleUnits) {
    EXPECT_EQ(parse_duration("500ms"), 500ms);
    EXPECT_EQ(parse_duration("30s"), 30s);
    EXPECT_EQ(parse_duration("2m"), 2min);
    EXPECT_EQ(parse_duration("2h"), 2h);
    EXPECT_EQ(parse_duration("1d"), 24h);
    EXPECT_EQ(parse_duration("3000000ns"), 3ms);
    EXPECT_EQ(parse_duration("2000us"), 2ms);
    EXPECT_EQ(parse_duration("2000\xC2\xB5s"), 2ms);
    EXPECT_EQ(parse_duration("2000\xCE\xBCs"), 2ms);
}

TEST(ParseDuration, ReadsBareZeroAndZeroWithUnit) {
    EXPECT_EQ(parse_duration("0"), 0ms);
    EXPECT_EQ(parse_duration("0s"), 0ms);
    EXPECT_EQ(parse_duration("0ms0s"), 0ms);
}

TEST(ParseDuration, AddsCompoundParts) {
    EXPECT_EQ(parse_duration("1m30s"), 90s);
    EXPECT_EQ(parse_duration("1h2m3s4ms"), 1h + 2min + 3s + 4ms);
    EXPECT_EQ(parse_duration("1d12h"), 36h);
    // Go does not require an order or unique units.
    EXPECT_EQ(parse_duration("30s1m"), 90s);
    EXPECT_EQ(parse_duration("1s1s"), 2s);
}

TEST(ParseDuration, ReadsFractionsExactly) {
    EXPECT_EQ(parse_duration("1.5s"), 1500ms);
    EXPECT_EQ(parse_duration("0.3s"), 300ms);
    EXPECT_EQ(parse_duration(".5s"), 500ms);
    EXPECT_EQ(parse_duration("5.s"), 5s);
    EXPECT_EQ(parse_duration("1.5h"), 90min);
    EXPECT_EQ(parse_duration("0.001s"), 1ms);
    EXPECT_EQ(parse_duration("1.5m30s"), 2min);
    EXPECT_EQ(parse_duration("0.5d"), 12h);
}

TEST(ParseDuration, IgnoresFractionDigitsBeyondNanoseconds) {
    EXPECT_EQ(parse_duration("0.99999999999999999999s"), 999ms);
    EXPECT_EQ(parse_duration("1.00000000099999999999999h"), 1h);
}

TEST(ParseDuration, TruncatesToWholeMilliseconds) {
    EXPECT_EQ(parse_duration("1.9ms"), 1ms);
    EXPECT_EQ(parse_duration("1999us"), 1ms);
    EXPECT_EQ(parse_duration("1.0009999999999s"), 1000ms);
}

TEST(ParseDuration, RejectsEmpty) {
    EXPECT_THAT(duration_error(""), HasSubstr("empty value"));
}

TEST(ParseDuration, RejectsNegative) {
    EXPECT_THAT(duration_error("-5s"), HasSubstr("invalid duration \"-5s\": negative"));
}

TEST(ParseDuration, RejectsMissingUnit) {
    EXPECT_THAT(duration_error("30"), HasSubstr("invalid duration \"30\": missing unit"));
    EXPECT_THAT(duration_error("1m30"), HasSubstr("missing unit"));
    EXPECT_THAT(duration_error("00"), HasSubstr("missing unit"));
}

TEST(ParseDuration, RejectsUnknownUnit) {
    EXPECT_THAT(duration_error("5x"), HasSubstr("invalid duration \"5x\": unknown unit \"x\""));
    EXPECT_THAT(duration_error("5S"), HasSubstr("unknown unit \"S\""));
    EXPECT_THAT(duration_error("5 s"), HasSubstr("unknown unit \" s\""));
    EXPECT_THAT(duration_error("1w"), HasSubstr("unknown unit \"w\""));
}

TEST(ParseDuration, RejectsMissingNumber) {
    EXPECT_THAT(duration_error("s"), HasSubstr("invalid duration \"s\": expected a number"));
    EXPECT_THAT(duration_error(".s"), HasSubstr("expected a number"));
    EXPECT_THAT(duration_error("+5s"), HasSubstr("expected a number"));
    EXPECT_THAT(duration_error(" 5s"), HasSubstr("expected a number"));
    EXPECT_THAT(duration_error("1..5s"), HasSubstr("missing unit"));
}

TEST(ParseDuration, RejectsOverflow) {
    // Go's limit is int64 nanoseconds, about 292 years.
    EXPECT_EQ(parse_duration("106751d"), 106751 * 24h);
    EXPECT_THAT(duration_error("106752d"), HasSubstr("invalid duration \"106752d\": too large"));
    EXPECT_THAT(duration_error("99999999999999999999s"), HasSubstr("too large"));
    EXPECT_THAT(duration_error("106751d106751d"), HasSubstr("too large"));
    // The whole hours fit; the fraction pushes the total over.
    EXPECT_EQ(parse_duration("2562047h"), 2562047h);
    EXPECT_THAT(duration_error("2562047.9h"), HasSubstr("too large"));
}

TEST(ParseDuration, RoundsAPositiveDurationBelowOneMillisecondUpToOne) {
    EXPECT_EQ(parse_duration("500us"), 1ms);
    EXPECT_EQ(parse_duration("1ns"), 1ms);
    EXPECT_EQ(parse_duration("1500us"), 1ms);
    EXPECT_EQ(parse_duration("0s"), 0ms);
}

TEST(ParseSize, ReadsPlainBytes) {
    EXPECT_EQ(parse_size("0"), 0u);
    EXPECT_EQ(parse_size("1024"), 1024u);
    EXPECT_EQ(parse_size("10B"), 10u);
}

TEST(ParseSize, ReadsDecimalUnits) {
    EXPECT_EQ(parse_size("10K"), 10'000u);
    EXPECT_EQ(parse_size("10KB"), 10'000u);
    EXPECT_EQ(parse_size("10MB"), 10'000'000u);
    EXPECT_EQ(parse_size("10M"), 10'000'000u);
    EXPECT_EQ(parse_size("2GB"), 2'000'000'000u);
    EXPECT_EQ(parse_size("2G"), 2'000'000'000u);
    EXPECT_EQ(parse_size("3TB"), 3'000'000'000'000u);
    EXPECT_EQ(parse_size("3T"), 3'000'000'000'000u);
}

TEST(ParseSize, ReadsBinaryUnits) {
    EXPECT_EQ(parse_size("10KiB"), 10u * 1024);
    EXPECT_EQ(parse_size("10MiB"), 10u * 1024 * 1024);
    EXPECT_EQ(parse_size("2GiB"), 2ull * 1024 * 1024 * 1024);
    EXPECT_EQ(parse_size("1TiB"), 1ull << 40);
}

TEST(ParseSize, IgnoresCaseOfUnits) {
    EXPECT_EQ(parse_size("10kb"), 10'000u);
    EXPECT_EQ(parse_size("10k"), 10'000u);
    EXPECT_EQ(parse_size("10kib"), 10'240u);
    EXPECT_EQ(parse_size("10KIB"), 10'240u);
    EXPECT_EQ(parse_size("1mib"), 1u << 20);
    EXPECT_EQ(parse_size("1gB"), 1'000'000'000u);
    EXPECT_EQ(parse_size("7b"), 7u);
}

TEST(ParseSize, AcceptsSpacesBeforeUnit) {
    EXPECT_EQ(parse_size("10 MB"), 10'000'000u);
    EXPECT_EQ(parse_size("10  KiB"), 10'240u);
    EXPECT_EQ(parse_size("10\tK"), 10'000u);
}

TEST(ParseSize, ReadsFractionsAndTruncatesToBytes) {
    EXPECT_EQ(parse_size("1.5KiB"), 1536u);
    EXPECT_EQ(parse_size("1.5MB"), 1'500'000u);
    EXPECT_EQ(parse_size("0.5K"), 500u);
    EXPECT_EQ(parse_size("1.9"), 1u);
}

TEST(ParseSize, RejectsEmpty) {
    EXPECT_THAT(size_error(""), HasSubstr("empty value"));
}

TEST(ParseSize, RejectsNegative) {
    EXPECT_THAT(size_error("-1MB"), HasSubstr("invalid size \"-1MB\": negative"));
}

TEST(ParseSize, RejectsUnknownUnit) {
    EXPECT_THAT(size_error("10XB"), HasSubstr("invalid size \"10XB\": unknown unit \"XB\""));
    EXPECT_THAT(size_error("10Ki"), HasSubstr("unknown unit \"Ki\""));
    EXPECT_THAT(size_error("10PB"), HasSubstr("unknown unit"));
    EXPECT_THAT(size_error("10MB5"), HasSubstr("unknown unit \"MB5\""));
    EXPECT_THAT(size_error("1,000"), HasSubstr("unknown unit \",000\""));
}

TEST(ParseSize, RejectsMissingNumber) {
    EXPECT_THAT(size_error("MB"), HasSubstr("invalid size \"MB\": expected a number"));
    EXPECT_THAT(size_error("+5"), HasSubstr("expected a number"));
    EXPECT_THAT(size_error("."), HasSubstr("expected a number"));
}

TEST(ParseSize, RejectsSurroundingWhitespace) {
    EXPECT_THAT(size_error(" 10MB"), HasSubstr("surrounding whitespace"));
    EXPECT_THAT(size_error("10MB "), HasSubstr("surrounding whitespace"));
    EXPECT_THAT(size_error("10 "), HasSubstr("surrounding whitespace"));
}

TEST(ParseSize, RejectsOverflow) {
    const std::string max = std::to_string(std::numeric_limits<std::size_t>::max());
    EXPECT_EQ(parse_size(max), std::numeric_limits<std::size_t>::max());
    EXPECT_THAT(size_error("18446744073709551616"), HasSubstr("too large"));
    EXPECT_THAT(size_error("99999999999999999999999"), HasSubstr("too large"));
    EXPECT_THAT(size_error("16777216TiB"), HasSubstr("too large"));
    EXPECT_THAT(size_error("18446744073709551615.5KB"), HasSubstr("too large"));
    // The whole kilobytes fit; the fraction pushes the total over.
    EXPECT_EQ(parse_size("18446744073709551.615KB"), std::numeric_limits<std::size_t>::max());
    EXPECT_THAT(size_error("18446744073709551.616KB"), HasSubstr("too large"));
}

TEST(FormatDuration, UsesTheLargestExactUnit) {
    EXPECT_EQ(format_duration(0ms), "0");
    EXPECT_EQ(format_duration(30s), "30s");
    EXPECT_EQ(format_duration(90s), "90s");
    EXPECT_EQ(format_duration(2min), "2m");
    EXPECT_EQ(format_duration(48h), "48h");
    EXPECT_EQ(format_duration(1500ms), "1500ms");
}

TEST(FormatDuration, RoundTripsThroughParseDuration) {
    for (const std::chrono::milliseconds duration :
         std::initializer_list<std::chrono::milliseconds>{0ms, 1ms, 999ms, 1000ms, 61s, 60min,
                                                          25h}) {
        EXPECT_EQ(parse_duration(format_duration(duration)), duration) << duration.count();
    }
}

TEST(FormatSize, UsesTheLargestExactBinaryUnit) {
    EXPECT_EQ(format_size(0), "0");
    EXPECT_EQ(format_size(1000), "1000");
    EXPECT_EQ(format_size(64 * 1024), "64KiB");
    EXPECT_EQ(format_size(64 * 1024 * 1024), "64MiB");
    EXPECT_EQ(format_size(std::size_t{3} << 30), "3GiB");
    EXPECT_EQ(format_size(std::size_t{5} << 40), "5TiB");
    EXPECT_EQ(format_size(1536), "1536");
}

TEST(FormatSize, RoundTripsThroughParseSize) {
    for (const std::size_t size :
         {std::size_t{0}, std::size_t{1}, std::size_t{1023}, std::size_t{4096},
          std::size_t{3} << 20, std::size_t{1} << 45, std::numeric_limits<std::size_t>::max()}) {
        EXPECT_EQ(parse_size(format_size(size)), size) << size;
    }
}

}  // namespace
}  // namespace spindle::config
