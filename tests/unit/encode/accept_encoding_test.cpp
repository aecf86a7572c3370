#include "encode/accept_encoding.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace spindle::encode {
namespace {

using enum content_coding;

const std::vector<content_coding> all{zstd, br, gzip};

TEST(AcceptEncoding, MissingOrEmptyHeaderMeansIdentity) {
    EXPECT_EQ(negotiate("", all), identity);
    EXPECT_EQ(negotiate("  ", all), identity);
    EXPECT_EQ(negotiate(",,", all), identity);
}

TEST(AcceptEncoding, ServerOrderBreaksTies) {
    EXPECT_EQ(negotiate("gzip, deflate, br, zstd", all), zstd);
    EXPECT_EQ(negotiate("gzip, br", all), br);
    EXPECT_EQ(negotiate("gzip, br", std::vector<content_coding>{gzip, br}), gzip);
    EXPECT_EQ(negotiate("gzip", all), gzip);
}

TEST(AcceptEncoding, HigherQValueWins) {
    EXPECT_EQ(negotiate("zstd;q=0.5, gzip;q=0.8", all), gzip);
    EXPECT_EQ(negotiate("br;q=1.0, zstd;q=0.999", all), br);
    EXPECT_EQ(negotiate("gzip;q=0.001", all), gzip);
}

TEST(AcceptEncoding, ZeroRefuses) {
    EXPECT_EQ(negotiate("zstd;q=0, br;q=0, gzip", all), gzip);
    EXPECT_EQ(negotiate("gzip;q=0", all), identity);
    EXPECT_EQ(negotiate("gzip;q=0.000", all), identity);
}

TEST(AcceptEncoding, StarCoversWhatIsNotListed) {
    EXPECT_EQ(negotiate("*", all), zstd);
    EXPECT_EQ(negotiate("zstd;q=0, *", all), br);
    EXPECT_EQ(negotiate("*;q=0", all), identity);
    EXPECT_EQ(negotiate("*;q=0, gzip", all), gzip);
    EXPECT_EQ(negotiate("gzip;q=0.5, *;q=0.2", all), gzip);
}

TEST(AcceptEncoding, IdentityWinsOnlyWhenRatedHigher) {
    EXPECT_EQ(negotiate("gzip;q=0.5, identity", all), identity);
    EXPECT_EQ(negotiate("gzip, identity", all), gzip);
    EXPECT_EQ(negotiate("gzip;q=0.5", all), gzip);
    EXPECT_EQ(negotiate("identity", all), identity);
    // Refusing identity while accepting nothing offered still gets identity (no 406).
    EXPECT_EQ(negotiate("identity;q=0, deflate", all), identity);
    EXPECT_EQ(negotiate("identity;q=0, br", all), br);
}

TEST(AcceptEncoding, TokensAreCaseInsensitiveAndXGzipIsGzip) {
    EXPECT_EQ(negotiate("GZIP", all), gzip);
    EXPECT_EQ(negotiate("Br;Q=0.9", all), br);
    EXPECT_EQ(negotiate("x-gzip", all), gzip);
    EXPECT_EQ(negotiate("ZStd", all), zstd);
}

TEST(AcceptEncoding, WhitespaceAndOtherParametersAreAllowed) {
    EXPECT_EQ(negotiate("  gzip ;  q=0.7 ,\tbr ; level=3 ; q=0.9  ", all), br);
}

TEST(AcceptEncoding, MalformedEntriesAreIgnored) {
    EXPECT_EQ(negotiate("br;q=2, gzip", all), gzip);
    EXPECT_EQ(negotiate("br;q=abc, gzip", all), gzip);
    EXPECT_EQ(negotiate("br;q=0.12345, gzip", all), gzip);
    EXPECT_EQ(negotiate("br;q=1.5", all), identity);
    EXPECT_EQ(negotiate("br;q, gzip", all), gzip);
    EXPECT_EQ(negotiate(";q=1, gzip", all), gzip);
    EXPECT_EQ(negotiate("compress, deflate", all), identity);
}

TEST(AcceptEncoding, ListedTwiceTheBetterRatingCounts) {
    EXPECT_EQ(negotiate("gzip;q=0, gzip;q=0.5", std::vector<content_coding>{gzip}), gzip);
}

TEST(AcceptEncoding, NothingOfferedMeansIdentity) {
    EXPECT_EQ(negotiate("gzip, br, zstd", std::vector<content_coding>{}), identity);
}

}  // namespace
}  // namespace spindle::encode
