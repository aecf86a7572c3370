#include "config/listen_address.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "config/config_error.hpp"

namespace spindle::config {
namespace {

using ::testing::HasSubstr;

std::string error_of(std::string_view text) {
    try {
        parse_listen_address(text);
    } catch (const config_error& error) {
        return error.what();
    }
    ADD_FAILURE() << "no config_error for \"" << text << "\"";
    return {};
}

TEST(ParseListenAddress, ReadsIpv4AndPort) {
    EXPECT_EQ(parse_listen_address("127.0.0.1:8080"), (listen_address{"127.0.0.1", 8080}));
    EXPECT_EQ(parse_listen_address("0.0.0.0:80"), (listen_address{"0.0.0.0", 80}));
}

TEST(ParseListenAddress, ReadsPortAloneAsEveryInterface) {
    EXPECT_EQ(parse_listen_address(":8080"), (listen_address{"", 8080}));
}

TEST(ParseListenAddress, ReadsHostNames) {
    EXPECT_EQ(parse_listen_address("localhost:8080"), (listen_address{"localhost", 8080}));
    EXPECT_EQ(parse_listen_address("app-1.example.com:443"),
              (listen_address{"app-1.example.com", 443}));
    EXPECT_EQ(parse_listen_address("php_fpm:9000"), (listen_address{"php_fpm", 9000}));
}

TEST(ParseListenAddress, ReadsBracketedIpv6) {
    EXPECT_EQ(parse_listen_address("[::1]:8080"), (listen_address{"::1", 8080}));
    EXPECT_EQ(parse_listen_address("[::]:80"), (listen_address{"::", 80}));
    EXPECT_EQ(parse_listen_address("[2001:db8::1]:443"), (listen_address{"2001:db8::1", 443}));
}

TEST(ParseListenAddress, AcceptsPortBounds) {
    EXPECT_EQ(parse_listen_address(":0").port, 0);
    EXPECT_EQ(parse_listen_address("127.0.0.1:0").port, 0);
    EXPECT_EQ(parse_listen_address(":65535").port, 65535);
    EXPECT_EQ(parse_listen_address(":08080").port, 8080);
}

TEST(ParseListenAddress, StripsHttpScheme) {
    EXPECT_EQ(parse_listen_address("http://127.0.0.1:8080"), (listen_address{"127.0.0.1", 8080}));
    EXPECT_EQ(parse_listen_address("HTTP://localhost:80/"), (listen_address{"localhost", 80}));
    EXPECT_EQ(parse_listen_address("http://[::1]:8080"), (listen_address{"::1", 8080}));
    EXPECT_EQ(parse_listen_address("http://:8080"), (listen_address{"", 8080}));
}

TEST(ParseListenAddress, RejectsEmpty) {
    EXPECT_THAT(error_of(""), HasSubstr("invalid listen address \"\": empty value"));
}

TEST(ParseListenAddress, RejectsMissingPort) {
    EXPECT_THAT(error_of("127.0.0.1"),
                HasSubstr("invalid listen address \"127.0.0.1\": missing port"));
    EXPECT_THAT(error_of("localhost:"), HasSubstr("missing port"));
    EXPECT_THAT(error_of(":"), HasSubstr("missing port"));
    EXPECT_THAT(error_of("[::1]"), HasSubstr("missing port"));
    EXPECT_THAT(error_of("[::1]:"), HasSubstr("missing port"));
    EXPECT_THAT(error_of("http://localhost"), HasSubstr("missing port"));
}

TEST(ParseListenAddress, RejectsInvalidPort) {
    EXPECT_THAT(error_of(":65536"), HasSubstr("port \"65536\" is above 65535"));
    EXPECT_THAT(error_of(":99999999999999999999"), HasSubstr("is above 65535"));
    EXPECT_THAT(error_of(":http"), HasSubstr("port \"http\" is not a number"));
    EXPECT_THAT(error_of(":-1"), HasSubstr("is not a number"));
    EXPECT_THAT(error_of(":+80"), HasSubstr("is not a number"));
    EXPECT_THAT(error_of(":80 "), HasSubstr("is not a number"));
    EXPECT_THAT(error_of("http://localhost:80/index.php"), HasSubstr("is not a number"));
}

TEST(ParseListenAddress, RejectsBadBrackets) {
    EXPECT_THAT(error_of("[]:80"), HasSubstr("empty host in brackets"));
    EXPECT_THAT(error_of("[::1:80"), HasSubstr("missing ']'"));
    EXPECT_THAT(error_of("[::1]80"), HasSubstr("expected ':' and a port after ']'"));
    EXPECT_THAT(error_of("[127.0.0.1]:80"), HasSubstr("\"127.0.0.1\" is not an IPv6 address"));
    EXPECT_THAT(error_of("[localhost]:80"), HasSubstr("is not an IPv6 address"));
}

TEST(ParseListenAddress, RejectsUnbracketedIpv6) {
    EXPECT_THAT(error_of("::1:8080"), HasSubstr("IPv6 addresses need brackets"));
}

TEST(ParseListenAddress, RejectsInvalidHosts) {
    EXPECT_THAT(error_of("local host:80"), HasSubstr("invalid character in host"));
    EXPECT_THAT(error_of("*:80"), HasSubstr("invalid character in host"));
    EXPECT_THAT(error_of("a..b:80"), HasSubstr("invalid host name \"a..b\""));
    EXPECT_THAT(error_of(".example.com:80"), HasSubstr("invalid host name"));
    EXPECT_THAT(error_of(std::string(64, 'a') + ":80"), HasSubstr("invalid host name"));
    EXPECT_THAT(error_of(std::string(254, 'a') + ":80"), HasSubstr("longer than 253"));
    EXPECT_THAT(error_of("300.1.1.1:80"), HasSubstr("invalid IPv4 address \"300.1.1.1\""));
    EXPECT_THAT(error_of("1.2.3:80"), HasSubstr("invalid IPv4 address"));
}

TEST(ParseListenAddress, HttpsMeansTls) {
    EXPECT_EQ(parse_listen_address("https://localhost:443"),
              (listen_address{"localhost", 443, true}));
    EXPECT_EQ(parse_listen_address("HTTPS://[::1]:8443/"), (listen_address{"::1", 8443, true}));
    EXPECT_FALSE(parse_listen_address("http://:80").tls);
    EXPECT_FALSE(parse_listen_address(":80").tls);
}

TEST(ParseListenAddress, RejectsOtherSchemes) {
    EXPECT_THAT(error_of("unix:///run/spindle.sock"),
                HasSubstr("a Unix socket is written unix/PATH, e.g. \"unix//run/spindle.sock\""));
    EXPECT_THAT(error_of("tcp://127.0.0.1:80"), HasSubstr("only the http:// and https://"));
}

TEST(ParseListenAddress, ReadsUnixSocketsAsCaddyWritesThem) {
    listen_address address = parse_listen_address("unix//run/spindle.sock");
    EXPECT_EQ(address.unix_path, "/run/spindle.sock");
    EXPECT_EQ(address.unix_mode, -1);
    EXPECT_FALSE(address.tls);
    EXPECT_EQ(parse_listen_address("unix/relative.sock").unix_path, "relative.sock");
    EXPECT_EQ(parse_listen_address("http://unix//run/s.sock").unix_path, "/run/s.sock");

    address = parse_listen_address("unix//run/spindle.sock|0660");
    EXPECT_EQ(address.unix_path, "/run/spindle.sock");
    EXPECT_EQ(address.unix_mode, 0660);
    EXPECT_EQ(parse_listen_address("unix//a|222").unix_mode, 0222);
}

TEST(ParseListenAddress, RejectsBadUnixSockets) {
    EXPECT_THAT(error_of("unix/"), HasSubstr("missing the socket's path"));
    EXPECT_THAT(error_of("unix/|0660"), HasSubstr("missing the socket's path"));
    EXPECT_THAT(error_of("unix//run/s.sock|0999"), HasSubstr("is not octal permission bits"));
    EXPECT_THAT(error_of("unix//run/s.sock|"), HasSubstr("is not octal permission bits"));
    EXPECT_THAT(error_of("unix//run/s.sock|rw"), HasSubstr("is not octal permission bits"));
    EXPECT_THAT(error_of("unix//" + std::string(107, 'a')), HasSubstr("limited to 107 bytes"));
    EXPECT_THAT(error_of("https://unix//run/s.sock"),
                HasSubstr("HTTPS on a Unix socket is not supported"));
}

TEST(SameSocket, UnixSocketsAreTheirPath) {
    EXPECT_TRUE(same_socket(parse_listen_address("unix//a.sock"),
                            parse_listen_address("unix//a.sock|0600")));
    EXPECT_FALSE(
        same_socket(parse_listen_address("unix//a.sock"), parse_listen_address("unix//b.sock")));
    EXPECT_FALSE(same_socket(parse_listen_address("unix//a.sock"), parse_listen_address(":0")));
}

TEST(SameSocket, IgnoresTheScheme) {
    EXPECT_TRUE(same_socket(listen_address{"", 443, true}, listen_address{"", 443, false}));
    EXPECT_FALSE(same_socket(listen_address{"", 443, true}, listen_address{"", 8443, true}));
    EXPECT_FALSE(
        same_socket(listen_address{"127.0.0.1", 443, true}, listen_address{"", 443, true}));
}

TEST(ListenAddressToString, WritesWhatParseReads) {
    EXPECT_EQ(to_string(listen_address{"", 8080}), ":8080");
    EXPECT_EQ(to_string(listen_address{"127.0.0.1", 80}), "127.0.0.1:80");
    EXPECT_EQ(to_string(listen_address{"::1", 443}), "[::1]:443");
    EXPECT_EQ(to_string(listen_address{"", 443, true}), "https://:443");
    for (const char* text : {":8080", "localhost:0", "[2001:db8::1]:65535", "https://[::1]:443",
                             "unix//run/spindle.sock", "unix/x.sock|0660"}) {
        EXPECT_EQ(to_string(parse_listen_address(text)), text);
    }
}

}  // namespace
}  // namespace spindle::config
