#include "encode/compressed_cache.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace spindle::encode {
namespace {

std::shared_ptr<const std::string> bytes(std::size_t n, char c = 'x') {
    return std::make_shared<const std::string>(n, c);
}

TEST(CompressedCache, FindsWhatWasInsertedUnderTheExactKey) {
    compressed_cache cache(1000);
    const compressed_cache::key key{"/srv/a.html", 500, 42, content_coding::gzip};
    cache.insert(key, bytes(100, 'a'));
    ASSERT_NE(cache.find(key), nullptr);
    EXPECT_EQ(*cache.find(key), std::string(100, 'a'));
    // Another coding, size, modification time or path is another variant.
    EXPECT_EQ(cache.find({"/srv/a.html", 500, 42, content_coding::br}), nullptr);
    EXPECT_EQ(cache.find({"/srv/a.html", 501, 42, content_coding::gzip}), nullptr);
    EXPECT_EQ(cache.find({"/srv/a.html", 500, 43, content_coding::gzip}), nullptr);
    EXPECT_EQ(cache.find({"/srv/b.html", 500, 42, content_coding::gzip}), nullptr);
}

TEST(CompressedCache, EvictsTheLeastRecentlyUsedToStayWithinCapacity) {
    compressed_cache cache(300);
    const compressed_cache::key a{"/a", 1, 1, content_coding::gzip};
    const compressed_cache::key b{"/b", 1, 1, content_coding::gzip};
    const compressed_cache::key c{"/c", 1, 1, content_coding::gzip};
    cache.insert(a, bytes(100));
    cache.insert(b, bytes(100));
    ASSERT_NE(cache.find(a), nullptr);  // a is now more recent than b
    cache.insert(c, bytes(150));
    EXPECT_NE(cache.find(a), nullptr);
    EXPECT_EQ(cache.find(b), nullptr);
    EXPECT_NE(cache.find(c), nullptr);
    EXPECT_EQ(cache.size_bytes(), 250u);
}

TEST(CompressedCache, ReplacesAnEntryAndRefusesOneLargerThanItAll) {
    compressed_cache cache(300);
    const compressed_cache::key a{"/a", 1, 1, content_coding::zstd};
    cache.insert(a, bytes(100, '1'));
    cache.insert(a, bytes(50, '2'));
    EXPECT_EQ(*cache.find(a), std::string(50, '2'));
    EXPECT_EQ(cache.size_bytes(), 50u);
    cache.insert({"/big", 1, 1, content_coding::zstd}, bytes(301));
    EXPECT_EQ(cache.find({"/big", 1, 1, content_coding::zstd}), nullptr);
    EXPECT_EQ(cache.size_bytes(), 50u);
}

}  // namespace
}  // namespace spindle::encode
