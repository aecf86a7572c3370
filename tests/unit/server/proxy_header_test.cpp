#include "server/http/proxy_header.hpp"

#include <string>

#include <gtest/gtest.h>

namespace spindle::server {
namespace {

const std::string v2_signature("\r\n\r\n\0\r\nQUIT\n", 12);

// A v2 header: version 2, `command` (0 LOCAL, 1 PROXY), `family`, then `payload`.
std::string v2(unsigned char command, unsigned char family, const std::string& payload) {
    std::string out = v2_signature;
    out.push_back(static_cast<char>(0x20 | command));
    out.push_back(static_cast<char>(family));
    out.push_back(static_cast<char>(payload.size() >> 8));
    out.push_back(static_cast<char>(payload.size() & 0xff));
    return out + payload;
}

std::string ipv4_payload() {
    // 192.0.2.1:56324 -> 10.0.0.5:443
    return std::string("\xc0\x00\x02\x01\x0a\x00\x00\x05\xdc\x04\x01\xbb", 12);
}

std::string text(const proxy_endpoint& e) {
    return config::format_ip(e.address) + ":" + std::to_string(e.port);
}

TEST(ProxyHeader, V1Tcp4KeepsWhatFollows) {
    proxy_header_parser p;
    const std::string input = "PROXY TCP4 192.0.2.1 10.0.0.5 56324 443\r\nGET / HTTP/1.1\r\n";
    const std::size_t used = p.feed(input);
    ASSERT_EQ(p.state(), proxy_header_state::done) << p.error();
    EXPECT_EQ(used, input.find("GET"));
    EXPECT_EQ(p.header_size(), used);
    EXPECT_EQ(p.header().version, 1);
    EXPECT_EQ(text(*p.header().source), "192.0.2.1:56324");
    EXPECT_EQ(text(*p.header().destination), "10.0.0.5:443");
}

TEST(ProxyHeader, V1Tcp6AndUnknown) {
    proxy_header_parser p6;
    p6.feed("PROXY TCP6 2001:db8::1 ::1 1 65535\r\n");
    ASSERT_EQ(p6.state(), proxy_header_state::done) << p6.error();
    EXPECT_EQ(text(*p6.header().source), "2001:db8::1:1");
    proxy_header_parser unknown;
    unknown.feed("PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n");
    ASSERT_EQ(unknown.state(), proxy_header_state::done);
    EXPECT_FALSE(unknown.header().source);
}

TEST(ProxyHeader, ByteByByteGivesTheSameHeader) {
    const std::string input = "PROXY TCP4 203.0.113.9 10.0.0.5 1234 80\r\n" + v2_signature;
    proxy_header_parser p;
    std::size_t used = 0;
    for (const char c : input) {
        used += p.feed(std::string_view(&c, 1));
        if (p.is_final()) {
            break;
        }
    }
    ASSERT_EQ(p.state(), proxy_header_state::done);
    EXPECT_EQ(used, input.size() - v2_signature.size());
    EXPECT_EQ(text(*p.header().source), "203.0.113.9:1234");
    // Once final, nothing more is taken.
    EXPECT_EQ(p.feed("more"), 0u);
}

TEST(ProxyHeader, V2ProxyIpv4Ipv6AndLocal) {
    proxy_header_parser p4;
    const std::string h4 = v2(1, 0x11, ipv4_payload() + std::string("\x04\x00\x01x", 4));
    EXPECT_EQ(p4.feed(h4 + "GET"), h4.size());
    ASSERT_EQ(p4.state(), proxy_header_state::done) << p4.error();
    EXPECT_EQ(p4.header().version, 2);
    EXPECT_EQ(text(*p4.header().source), "192.0.2.1:56324");
    EXPECT_EQ(text(*p4.header().destination), "10.0.0.5:443");

    std::string payload6(36, '\0');
    payload6[0] = '\x20';
    payload6[1] = '\x01';
    payload6[15] = '\x07';
    payload6[31] = '\x01';
    payload6[32] = '\x00';
    payload6[33] = '\x50';
    proxy_header_parser p6;
    p6.feed(v2(1, 0x21, payload6));
    ASSERT_EQ(p6.state(), proxy_header_state::done) << p6.error();
    EXPECT_EQ(text(*p6.header().source), "2001::7:80");

    proxy_header_parser local;
    local.feed(v2(0, 0x00, ""));
    ASSERT_EQ(local.state(), proxy_header_state::done);
    EXPECT_FALSE(local.header().source);
    proxy_header_parser unix_family;
    unix_family.feed(v2(1, 0x31, std::string(216, 'x')));
    ASSERT_EQ(unix_family.state(), proxy_header_state::done);
    EXPECT_FALSE(unix_family.header().source);
}

TEST(ProxyHeader, OtherProtocolsAreNotProxyAndLoseNoByte) {
    for (const char* start : {"GET / HTTP/1.1\r\n", "POST /", "PRI * HTTP/2.0", "\x16\x03\x01",
                              "\r\n\r\nX", "PROXYTCP4"}) {
        proxy_header_parser p;
        EXPECT_EQ(p.feed(start), 0u) << start;
        EXPECT_EQ(p.state(), proxy_header_state::not_proxy) << start;
    }
    // Undecided until a byte differs: "PRO" could still be a header.
    proxy_header_parser p;
    p.feed("PRO");
    EXPECT_EQ(p.state(), proxy_header_state::v1_signature);
}

TEST(ProxyHeader, MalformedHeadersAreInvalidWithAReason) {
    const std::string cases[] = {
        "PROXY TCP4 192.0.2.1 10.0.0.5 1 2\n",              // LF alone
        "PROXY TCP4 192.0.2.1 10.0.0.5 1\r\n",              // a port missing
        "PROXY TCP4 192.0.2.1 10.0.0.5 1 2 3\r\n",          // a field too many
        "PROXY TCP4 2001:db8::1 10.0.0.5 1 2\r\n",          // family mismatch
        "PROXY TCP4 192.0.2.1 10.0.0.5 65536 2\r\n",        // port range
        "PROXY TCP4 192.0.2.1 10.0.0.5 01 2\r\n",           // leading zero
        "PROXY TCP4 192.0.2.1 10.0.0.5 1 2 \r\n",           // trailing space
        "PROXY UDP4 192.0.2.1 10.0.0.5 1 2\r\n",            // protocol
        "PROXY \r\n",                                       // nothing
        "PROXY TCP4 " + std::string(100, '1') + "\r\n",     // too long
        std::string("PROXY TCP4 1.2.3.4\0 1", 22),          // NUL
        v2(1, 0x11, "short"),                               // cut IPv4
        v2(1, 0x21, std::string(20, 'x')),                  // cut IPv6
        v2(1, 0x51, ""),                                    // family
        v2(2, 0x11, ipv4_payload()),                        // command
        v2_signature + std::string("\x11\x11\x00\x0c", 4),  // version 1 in v2
        v2_signature + std::string("\x21\x11\xff\xff", 4),  // over 4096 bytes
    };
    for (const std::string& input : cases) {
        proxy_header_parser p;
        p.feed(input);
        EXPECT_EQ(p.state(), proxy_header_state::invalid) << input;
        EXPECT_FALSE(p.error().empty());
    }
}

TEST(ProxyPolicy, DenyThenAllowThenFallbackUnixUses) {
    config::proxy_protocol_config c;
    c.allow = {"10.0.0.0/8"};
    c.deny = {"10.9.0.0/16"};
    c.fallback_policy = "require";
    const proxy_protocol_rules rules(c);
    EXPECT_EQ(rules.policy_for("10.9.1.1", false), proxy_policy::reject);
    EXPECT_EQ(rules.policy_for("10.1.1.1", false), proxy_policy::use);
    EXPECT_EQ(rules.policy_for("192.0.2.1", false), proxy_policy::require);
    EXPECT_EQ(rules.policy_for("127.0.0.1", true), proxy_policy::use);
    EXPECT_EQ(parse_proxy_policy("skip"), proxy_policy::skip);
    EXPECT_EQ(parse_proxy_policy("USE"), std::nullopt);
    c.fallback_policy = "bogus";
    EXPECT_THROW(proxy_protocol_rules{c}, std::invalid_argument);
    EXPECT_EQ(to_string(proxy_header_state::not_proxy), "not_proxy");
}

}  // namespace
}  // namespace spindle::server
