#include "server/static/static_file.hpp"

#include <gtest/gtest.h>

#include "server/http/http_date.hpp"

namespace spindle::server {
namespace {

const file_meta meta{1000, 784111777};  // Sun, 06 Nov 1994 08:49:37 GMT

TEST(StaticFileEtag, ChangesWithSizeAndTime) {
    EXPECT_EQ(make_etag(meta), "\"2ebc98a1-3e8\"");
    EXPECT_NE(make_etag(meta), make_etag({1001, meta.mtime}));
    EXPECT_NE(make_etag(meta), make_etag({meta.size, meta.mtime + 1}));
}

TEST(StaticFileConditional, IfNoneMatchDecidesOverIfModifiedSince) {
    std::string etag = make_etag(meta);
    EXPECT_TRUE(is_not_modified(etag, "", etag, meta));
    EXPECT_TRUE(is_not_modified("\"other\", " + etag, "", etag, meta));
    EXPECT_TRUE(is_not_modified("W/" + etag, "", etag, meta));
    EXPECT_TRUE(is_not_modified("*", "", etag, meta));
    // A non-matching tag wins even over a date that would say "not modified".
    EXPECT_FALSE(is_not_modified("\"other\"", "Sun, 06 Nov 1994 08:49:37 GMT", etag, meta));
}

TEST(StaticFileConditional, IfModifiedSinceComparesSeconds) {
    std::string etag = make_etag(meta);
    EXPECT_TRUE(is_not_modified("", "Sun, 06 Nov 1994 08:49:37 GMT", etag, meta));
    EXPECT_TRUE(is_not_modified("", "Mon, 07 Nov 1994 08:49:37 GMT", etag, meta));
    EXPECT_FALSE(is_not_modified("", "Sun, 06 Nov 1994 08:49:36 GMT", etag, meta));
    EXPECT_FALSE(is_not_modified("", "garbage", etag, meta));
    EXPECT_FALSE(is_not_modified("", "", etag, meta));
}

TEST(StaticFileRange, ParsesTheThreeForms) {
    std::string etag = make_etag(meta);
    byte_range r;
    ASSERT_EQ(parse_range("bytes=0-99", "", etag, meta, r), range_kind::partial);
    EXPECT_EQ(r.first, 0u);
    EXPECT_EQ(r.length, 100u);
    ASSERT_EQ(parse_range("bytes=900-", "", etag, meta, r), range_kind::partial);
    EXPECT_EQ(r.first, 900u);
    EXPECT_EQ(r.length, 100u);
    ASSERT_EQ(parse_range("bytes=-10", "", etag, meta, r), range_kind::partial);
    EXPECT_EQ(r.first, 990u);
    EXPECT_EQ(r.length, 10u);
}

TEST(StaticFileRange, ClampsAndRejects) {
    std::string etag = make_etag(meta);
    byte_range r;
    ASSERT_EQ(parse_range("bytes=990-5000", "", etag, meta, r), range_kind::partial);
    EXPECT_EQ(r.length, 10u);
    ASSERT_EQ(parse_range("bytes=-5000", "", etag, meta, r), range_kind::partial);
    EXPECT_EQ(r.first, 0u);
    EXPECT_EQ(r.length, 1000u);
    EXPECT_EQ(parse_range("bytes=1000-", "", etag, meta, r), range_kind::unsatisfiable);
    EXPECT_EQ(parse_range("bytes=-0", "", etag, meta, r), range_kind::unsatisfiable);
    EXPECT_EQ(parse_range("bytes=5-2", "", etag, meta, r), range_kind::full);
    EXPECT_EQ(parse_range("bytes=0-1,5-6", "", etag, meta, r), range_kind::full);
    EXPECT_EQ(parse_range("items=0-1", "", etag, meta, r), range_kind::full);
    EXPECT_EQ(parse_range("bytes=a-b", "", etag, meta, r), range_kind::full);
    EXPECT_EQ(parse_range("", "", etag, meta, r), range_kind::full);
}

TEST(StaticFileRange, IfRangeMustMatchStrongly) {
    std::string etag = make_etag(meta);
    byte_range r;
    EXPECT_EQ(parse_range("bytes=0-1", etag, etag, meta, r), range_kind::partial);
    EXPECT_EQ(parse_range("bytes=0-1", "\"stale\"", etag, meta, r), range_kind::full);
    EXPECT_EQ(parse_range("bytes=0-1", "W/" + etag, etag, meta, r), range_kind::full);
    EXPECT_EQ(parse_range("bytes=0-1", format_http_date(meta.mtime), etag, meta, r),
              range_kind::partial);
    EXPECT_EQ(parse_range("bytes=0-1", format_http_date(meta.mtime - 1), etag, meta, r),
              range_kind::full);
}

}  // namespace
}  // namespace spindle::server
