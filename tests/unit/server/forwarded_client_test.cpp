#include "server/http/forwarded_client.hpp"

#include <gtest/gtest.h>

namespace spindle::server {
namespace {

forwarding_rules rules(std::vector<std::string> ranges, bool strict = false, bool host = false) {
    config::trusted_proxies_config config;
    config.ranges = std::move(ranges);
    config.strict = strict;
    config.use_host = host;
    return forwarding_rules(config);
}

TEST(ForwardedHeader, ReadsForProtoAndHostOfEachElement) {
    std::vector<forwarded_element> out;
    parse_forwarded(
        "for=192.0.2.60;proto=https;by=203.0.113.43;host=example.com, "
        "For=\"[2001:db8:cafe::17]:4711\"",
        out);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].for_node, "192.0.2.60");
    EXPECT_EQ(out[0].proto, "https");
    EXPECT_EQ(out[0].host, "example.com");
    EXPECT_EQ(out[1].for_node, "[2001:db8:cafe::17]:4711");
    EXPECT_EQ(out[1].proto, "");
}

TEST(ForwardedHeader, StopsAtAMalformedElementKeepingThoseBefore) {
    for (const char* value : {"for=1.2.3.4, for", "for=1.2.3.4, =x", "for=1.2.3.4, for=\"open",
                              "for=1.2.3.4, for=\"a\\\"b\"", "for=1.2.3.4, for=5.6.7.8 junk"}) {
        std::vector<forwarded_element> out;
        parse_forwarded(value, out);
        ASSERT_EQ(out.size(), 1u) << value;
        EXPECT_EQ(out[0].for_node, "1.2.3.4") << value;
    }
    std::vector<forwarded_element> none;
    parse_forwarded("", none);
    parse_forwarded(" ; , ", none);
    EXPECT_TRUE(none.empty());
}

TEST(ForwardedNode, AddressesWithAndWithoutPorts) {
    const auto v4 = parse_node("192.0.2.1:8080");
    ASSERT_TRUE(v4);
    EXPECT_EQ(config::format_ip(v4->address), "192.0.2.1");
    EXPECT_EQ(v4->port, 8080);
    const auto v6 = parse_node("[2001:db8::1]:4711");
    ASSERT_TRUE(v6);
    EXPECT_EQ(config::format_ip(v6->address), "2001:db8::1");
    EXPECT_EQ(v6->port, 4711);
    const auto bare6 = parse_node(" 2001:db8::2 ");
    ASSERT_TRUE(bare6);
    EXPECT_EQ(bare6->port, 0);
    // An obfuscated port (RFC 7239 6.3) keeps the address.
    const auto hidden_port = parse_node("[2001:db8::1]:_abc");
    ASSERT_TRUE(hidden_port);
    EXPECT_EQ(hidden_port->port, 0);
    for (const char* bad : {"unknown", "_hidden", "[2001:db8::1", "[::1]x", "1.2.3.4:80:1", ""}) {
        EXPECT_FALSE(parse_node(bad)) << bad;
    }
}

TEST(ForwardedClient, UntrustedPeersAndUnixPeersNeedTrust) {
    const forwarding_rules r = rules({"10.0.0.0/8"});
    EXPECT_TRUE(is_trusted_peer(r, "10.1.1.1", false));
    EXPECT_TRUE(is_trusted_peer(r, "::ffff:10.1.1.1", false));
    EXPECT_FALSE(is_trusted_peer(r, "192.0.2.1", false));
    EXPECT_FALSE(is_trusted_peer(r, "127.0.0.1", true));
    forwarding_rules unix_rules = r;
    unix_rules.trust_unix = true;
    EXPECT_TRUE(is_trusted_peer(unix_rules, "127.0.0.1", true));
    EXPECT_FALSE(forwarding_rules().is_enabled());
    EXPECT_TRUE(r.is_enabled());
}

TEST(ForwardedClient, LeftMostByDefaultRightMostUntrustedWhenStrict) {
    // A client sent "X-Forwarded-For: 6.6.6.6"; the trusted proxies appended the rest.
    const field_view fields[] = {{"X-Forwarded-For", "6.6.6.6, 203.0.113.5"},
                                 {"x-forwarded-for", "10.0.0.2"}};
    const forwarded_client loose = read_forwarded(rules({"10.0.0.0/8"}), fields);
    EXPECT_EQ(loose.address, "6.6.6.6");
    const forwarded_client strict = read_forwarded(rules({"10.0.0.0/8"}, true), fields);
    EXPECT_EQ(strict.address, "203.0.113.5");
    // Every hop trusted: no client to name, the peer stays.
    const field_view inner[] = {{"X-Forwarded-For", "10.0.0.3, 10.0.0.2"}};
    EXPECT_FALSE(read_forwarded(rules({"10.0.0.0/8"}, true), inner).address);
    // An "unknown" where the first untrusted hop should be ends the walk.
    const field_view unknown[] = {{"X-Forwarded-For", "6.6.6.6, unknown, 10.0.0.2"}};
    EXPECT_FALSE(read_forwarded(rules({"10.0.0.0/8"}, true), unknown).address);
    // Non-strict passes over what is not an address.
    const field_view junk[] = {{"X-Forwarded-For", "junk, 198.51.100.4:5555"}};
    const forwarded_client skipped = read_forwarded(rules({"10.0.0.0/8"}), junk);
    EXPECT_EQ(skipped.address, "198.51.100.4");
    EXPECT_EQ(skipped.port, 5555);
}

TEST(ForwardedClient, ForwardedHeaderNamesClientSchemeAndHost) {
    const field_view fields[] = {
        {"Forwarded", "for=\"[2001:db8::9]:4711\";proto=https;host=shop.example"}};
    const forwarded_client c = read_forwarded(rules({"127.0.0.0/8"}, false, true), fields);
    EXPECT_EQ(c.address, "2001:db8::9");
    EXPECT_EQ(c.port, 4711);
    EXPECT_EQ(c.is_https, true);
    EXPECT_EQ(c.host, "shop.example");
    // Without use_host, the host is not taken.
    EXPECT_FALSE(read_forwarded(rules({"127.0.0.0/8"}), fields).host);
    // An obfuscated identifier is no client.
    const field_view hidden[] = {{"Forwarded", "for=_hidden;proto=http"}};
    const forwarded_client h = read_forwarded(rules({"127.0.0.0/8"}), hidden);
    EXPECT_FALSE(h.address);
    EXPECT_EQ(h.is_https, false);
}

TEST(ForwardedClient, FirstClientIpHeaderPresentDecides) {
    const field_view both[] = {{"Forwarded", "for=198.51.100.1"},
                               {"X-Forwarded-For", "198.51.100.2"}};
    EXPECT_EQ(read_forwarded(rules({"127.0.0.0/8"}), both).address, "198.51.100.2");
    forwarding_rules only_forwarded = rules({"127.0.0.0/8"});
    only_forwarded.client_ip_headers = {"Forwarded"};
    EXPECT_EQ(read_forwarded(only_forwarded, both).address, "198.51.100.1");
    forwarding_rules custom = rules({"127.0.0.0/8"});
    custom.client_ip_headers = {"CF-Connecting-IP"};
    const field_view cf[] = {{"cf-connecting-ip", "203.0.113.77"},
                             {"X-Forwarded-For", "198.51.100.2"}};
    EXPECT_EQ(read_forwarded(custom, cf).address, "203.0.113.77");
}

TEST(ForwardedClient, ProtoPortAndHostFromXForwardedHeaders) {
    const field_view fields[] = {{"X-Forwarded-Proto", "HTTPS, http"},
                                 {"X-Forwarded-Port", "8443"},
                                 {"X-Forwarded-Host", "www.example.com:8443, inner"}};
    const forwarded_client c = read_forwarded(rules({"127.0.0.0/8"}, false, true), fields);
    EXPECT_FALSE(c.address);
    EXPECT_EQ(c.is_https, true);
    EXPECT_EQ(c.server_port, 8443);
    EXPECT_EQ(c.host, "www.example.com:8443");
    const field_view bad[] = {{"X-Forwarded-Proto", "gopher"},
                              {"X-Forwarded-Port", "99999"},
                              {"X-Forwarded-Host", "evil.com/path"}};
    const forwarded_client b = read_forwarded(rules({"127.0.0.0/8"}, false, true), bad);
    EXPECT_FALSE(b.is_https);
    EXPECT_FALSE(b.server_port);
    EXPECT_FALSE(b.host);
}

}  // namespace
}  // namespace spindle::server
