#include "acme/base64url.hpp"

#include <gtest/gtest.h>

namespace spindle::acme {
namespace {

TEST(Base64url, EncodesRfc4648VectorsWithoutPadding) {
    EXPECT_EQ(base64url_encode(""), "");
    EXPECT_EQ(base64url_encode("f"), "Zg");
    EXPECT_EQ(base64url_encode("fo"), "Zm8");
    EXPECT_EQ(base64url_encode("foo"), "Zm9v");
    EXPECT_EQ(base64url_encode("foob"), "Zm9vYg");
    EXPECT_EQ(base64url_encode("fooba"), "Zm9vYmE");
    EXPECT_EQ(base64url_encode("foobar"), "Zm9vYmFy");
}

TEST(Base64url, UsesTheUrlSafeAlphabet) {
    EXPECT_EQ(base64url_encode(std::string("\xfb\xff\xbf", 3)), "-_-_");
}

TEST(Base64url, DecodesWhatItEncodes) {
    std::string all;
    for (int i = 0; i < 256; ++i) {
        all.push_back(static_cast<char>(i));
    }
    for (std::size_t n = 0; n <= all.size(); n += 37) {
        const std::string part = all.substr(0, n);
        EXPECT_EQ(base64url_decode(base64url_encode(part)), part);
    }
}

TEST(Base64url, RejectsForeignCharactersAndImpossibleLengths) {
    EXPECT_FALSE(base64url_decode("Zm9v+g"));
    EXPECT_FALSE(base64url_decode("Zm9v="));
    EXPECT_FALSE(base64url_decode("Zm9vY"));
}

}  // namespace
}  // namespace spindle::acme
