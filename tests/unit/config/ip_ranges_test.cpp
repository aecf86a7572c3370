#include "config/ip_ranges.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

namespace spindle::config {
namespace {

TEST(IpRanges, ParsesBothFamiliesAndRejectsTheRest) {
    EXPECT_TRUE(parse_ip("10.1.2.3"));
    EXPECT_TRUE(parse_ip("2001:db8::1"));
    EXPECT_TRUE(parse_ip("::ffff:10.1.2.3"));
    for (const char* bad : {"", "10.1.2", "10.1.2.256", "[::1]", "1.2.3.4:80", "unknown", "_x",
                            "::1%eth0", " 10.0.0.1"}) {
        EXPECT_FALSE(parse_ip(bad)) << bad;
    }
}

TEST(IpRanges, MappedIpv4IsTheSameAddressAsIpv4) {
    EXPECT_EQ(parse_ip("::ffff:10.1.2.3"), parse_ip("10.1.2.3"));
    EXPECT_EQ(format_ip(*parse_ip("::ffff:10.1.2.3")), "10.1.2.3");
    EXPECT_EQ(format_ip(*parse_ip("2001:0db8:0:0:0:0:0:1")), "2001:db8::1");
}

TEST(IpRanges, PrefixesMatchOnTheirBitsOnly) {
    const ip_range r8 = parse_ip_range("10.0.0.0/8");
    EXPECT_TRUE(r8.contains(*parse_ip("10.255.0.1")));
    EXPECT_TRUE(r8.contains(*parse_ip("::ffff:10.0.0.9")));
    EXPECT_FALSE(r8.contains(*parse_ip("11.0.0.1")));
    const ip_range r12 = parse_ip_range("172.16.0.0/12");
    EXPECT_TRUE(r12.contains(*parse_ip("172.31.255.255")));
    EXPECT_FALSE(r12.contains(*parse_ip("172.32.0.0")));
    const ip_range host = parse_ip_range("192.0.2.7");
    EXPECT_TRUE(host.contains(*parse_ip("192.0.2.7")));
    EXPECT_FALSE(host.contains(*parse_ip("192.0.2.8")));
    const ip_range v6 = parse_ip_range("fd00::/8");
    EXPECT_TRUE(v6.contains(*parse_ip("fdab::1")));
    EXPECT_FALSE(v6.contains(*parse_ip("fe80::1")));
    // An IPv6 range never holds an IPv4 address by accident, nor the reverse.
    EXPECT_FALSE(parse_ip_range("::/1").contains(*parse_ip("10.0.0.1")));
    EXPECT_FALSE(parse_ip_range("0.0.0.0/0").contains(*parse_ip("2001:db8::1")));
    EXPECT_TRUE(parse_ip_range("0.0.0.0/0").contains(*parse_ip("203.0.113.9")));
}

TEST(IpRanges, BadRangesSayWhy) {
    for (const char* bad :
         {"10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/x", "nope/8", "", "10.0.0.0/8/8"}) {
        EXPECT_THROW(parse_ip_range(bad), std::invalid_argument) << bad;
    }
    try {
        parse_ip_range("10.0.0.0/40");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "\"10.0.0.0/40\" is not an IP range: the prefix length is above 32");
    }
}

TEST(IpRanges, PrivateRangesAreCaddys) {
    const ip_range_set set(private_ip_ranges());
    for (const char* inside : {"10.2.3.4", "172.20.0.1", "192.168.1.1", "127.0.0.1", "::1",
                               "fd12::1", "fe80::1", "169.254.1.1"}) {
        EXPECT_TRUE(set.contains(std::string_view(inside))) << inside;
    }
    for (const char* outside : {"8.8.8.8", "172.32.0.1", "2001:db8::1", "not an address"}) {
        EXPECT_FALSE(set.contains(std::string_view(outside))) << outside;
    }
    EXPECT_TRUE(ip_range_set().empty());
}

}  // namespace
}  // namespace spindle::config
