#include "encode/encode_policy.hpp"

#include <gtest/gtest.h>

namespace spindle::encode {
namespace {

config::encode_config php_server_config() {
    return config::default_php_server_encode();
}

TEST(EncodePolicy, NegotiableResponses) {
    const encode_policy policy(php_server_config());
    EXPECT_TRUE(policy.is_negotiable({200, "text/html; charset=UTF-8", "", "", false}));
    EXPECT_TRUE(policy.is_negotiable({404, "application/json", "", "", false}));
    EXPECT_TRUE(policy.is_negotiable({200, "text/html", "identity", "", false}));
    EXPECT_TRUE(policy.is_negotiable({200, "text/html", "", "public, max-age=60", false}));
}

TEST(EncodePolicy, NeverBodilessPartialEncodedOrNoTransform) {
    const encode_policy policy(php_server_config());
    for (const int status : {101, 103, 204, 206, 304}) {
        EXPECT_FALSE(policy.is_negotiable({status, "text/html", "", "", false})) << status;
    }
    EXPECT_FALSE(policy.is_negotiable({200, "text/html", "", "", true}));
    EXPECT_FALSE(policy.is_negotiable({200, "text/html", "gzip", "", false}));
    EXPECT_FALSE(policy.is_negotiable({200, "text/html", "", "private, No-Transform", false}));
    EXPECT_FALSE(policy.is_negotiable({200, "image/png", "", "", false}));
    EXPECT_FALSE(policy.is_negotiable({200, "", "", "", false}));
}

TEST(EncodePolicy, ChoosesInConfiguredOrderWithLevels) {
    const encode_policy policy(config::encode_config{{{"gzip", 9}, {"br", 0}}, 100, {}});
    EXPECT_EQ(policy.choose("br, gzip, zstd"), content_coding::gzip);
    EXPECT_EQ(policy.choose("zstd"), content_coding::identity);
    EXPECT_EQ(policy.level(content_coding::gzip), 9);
    EXPECT_EQ(policy.level(content_coding::br), 0);
    EXPECT_EQ(policy.minimum_length(), 100u);
}

TEST(EncodePolicy, WeakEtag) {
    EXPECT_EQ(weak_etag("\"abc-12\""), "W/\"abc-12\"");
    EXPECT_EQ(weak_etag("W/\"abc\""), "W/\"abc\"");
}

}  // namespace
}  // namespace spindle::encode
