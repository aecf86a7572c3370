#include "server/http/request_headers.hpp"

#include <gtest/gtest.h>

namespace spindle::server {
namespace {

TEST(RequestHeaders, ForwardableNamesAreLettersDigitsAndDashes) {
    EXPECT_TRUE(is_forwardable_header_name("X-Forwarded-For"));
    EXPECT_TRUE(is_forwardable_header_name("accept"));
    EXPECT_TRUE(is_forwardable_header_name("X-1"));
    EXPECT_FALSE(is_forwardable_header_name(""));
    EXPECT_FALSE(is_forwardable_header_name("X_Forwarded_For"));
    EXPECT_FALSE(is_forwardable_header_name("X.Dot"));
    EXPECT_FALSE(is_forwardable_header_name("caf\xc3\xa9"));
}

TEST(RequestHeaders, ValidHostsAreRegNamesOrBracketedAddressesWithAPort) {
    for (const char* host : {"example.com", "example.com:8080", "a_b.test", "127.0.0.1:80", "[::1]",
                             "[::1]:8080", "[2001:db8::1]", "localhost:", "x"}) {
        EXPECT_TRUE(is_valid_host(host)) << host;
    }
    for (const char* host : {"", ":80", "a b", "a/b", "a@b", "[::1", "[]", "[::1]x", "[g::1]",
                             "a:b", "a:123456", "a:1:2", "a\r\nX: y", "a%2f"}) {
        EXPECT_FALSE(is_valid_host(host)) << host;
    }
}

TEST(RequestHeaders, ChunkedOnlyWhenTransferEncodingNamesChunkedAlone) {
    auto check = [](std::initializer_list<const char*> values) {
        boost::beast::http::fields fields;
        fields.insert("Host", "x");
        for (const char* value : values) {
            fields.insert(boost::beast::http::field::transfer_encoding, value);
        }
        return is_chunked_only(fields);
    };
    EXPECT_TRUE(check({"chunked"}));
    EXPECT_TRUE(check({"Chunked"}));
    EXPECT_TRUE(check({" chunked ,"}));
    EXPECT_FALSE(check({}));
    EXPECT_FALSE(check({"gzip, chunked"}));
    EXPECT_FALSE(check({"gzip", "chunked"}));
    EXPECT_FALSE(check({"chunked, chunked"}));
    EXPECT_FALSE(check({"chunked", "chunked"}));
    EXPECT_FALSE(check({"chunked;q=1"}));
    boost::beast::http::fields apart;  // two fields with another between them
    apart.insert(boost::beast::http::field::transfer_encoding, "gzip");
    apart.insert("Host", "x");
    apart.insert(boost::beast::http::field::transfer_encoding, "chunked");
    EXPECT_FALSE(is_chunked_only(apart));
    EXPECT_FALSE(check({"identity"}));
    EXPECT_FALSE(check({""}));
}

TEST(RequestHeaders, HostWithoutPort) {
    EXPECT_EQ(host_without_port("example.com:8080"), "example.com");
    EXPECT_EQ(host_without_port("example.com"), "example.com");
    EXPECT_EQ(host_without_port("[::1]:80"), "[::1]");
    EXPECT_EQ(host_without_port("[::1]"), "[::1]");
}

TEST(RequestHeaders, ServerPortIsTheHostsPortElseTheSchemes) {
    EXPECT_EQ(server_port_of("example.com:8080", false), 8080);
    EXPECT_EQ(server_port_of("example.com:8443", true), 8443);
    EXPECT_EQ(server_port_of("example.com", false), 80);
    EXPECT_EQ(server_port_of("example.com", true), 443);
    EXPECT_EQ(server_port_of("[::1]:9000", false), 9000);
    EXPECT_EQ(server_port_of("[::1]", true), 443);
    EXPECT_EQ(server_port_of("", false), 80);
    // Not a port: the scheme's.
    EXPECT_EQ(server_port_of("example.com:", false), 80);
    EXPECT_EQ(server_port_of("example.com:99999", false), 80);
    EXPECT_EQ(server_port_of("example.com:0", true), 443);
}

TEST(RequestHeaders, CopiesForwardableFieldsInOrderWithoutProxy) {
    boost::beast::http::fields fields;
    fields.insert("Accept", "*/*");
    fields.insert("X_Spoof", "1");
    fields.insert("Proxy", "http://evil.test");
    fields.insert("X-Repeat", "a");
    fields.insert("X-Repeat", "b");
    std::vector<sapi::header> out;
    copy_forwardable_headers(fields, out);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].name, "Accept");
    EXPECT_EQ(out[0].value, "*/*");
    EXPECT_EQ(out[1].name, "X-Repeat");
    EXPECT_EQ(out[1].value, "a");
    EXPECT_EQ(out[2].value, "b");
}

}  // namespace
}  // namespace spindle::server
