#include "server/http/body_store.hpp"

#include <gtest/gtest.h>

#include <string>

namespace spindle::server {
namespace {

std::string read_all(body_store& store, std::size_t chunk) {
    std::string out;
    std::string buffer(chunk, '\0');
    while (std::size_t n = store.read(buffer.data(), buffer.size())) {
        out.append(buffer.data(), n);
    }
    return out;
}

std::string pattern(std::size_t size) {
    std::string s(size, '\0');
    for (std::size_t i = 0; i < size; ++i) {
        s[i] = static_cast<char>('a' + (i * 7) % 26);
    }
    return s;
}

TEST(BodyStore, SmallBodyStaysInMemoryAndReadsBack) {
    body_store store(1024);
    ASSERT_FALSE(store.append("hello ", 6));
    ASSERT_FALSE(store.append("world", 5));
    EXPECT_EQ(store.size(), 11u);
    EXPECT_EQ(read_all(store, 4), "hello world");
}

TEST(BodyStore, LargeBodySpillsAndReadsBackExactly) {
    std::string data = pattern(300000);
    body_store store(1000);
    for (std::size_t i = 0; i < data.size(); i += 4096) {
        std::size_t n = std::min<std::size_t>(4096, data.size() - i);
        ASSERT_FALSE(store.append(data.data() + i, n));
    }
    EXPECT_EQ(store.size(), data.size());
    // Reads that straddle the memory/file boundary.
    EXPECT_EQ(read_all(store, 777), data);
}

TEST(BodyStore, EmptyBodyReadsNothing) {
    body_store store(16);
    char c;
    EXPECT_EQ(store.read(&c, 1), 0u);
}

TEST(BodyStore, ZeroMemoryLimitSpillsEverything) {
    std::string data = pattern(5000);
    body_store store(0);
    ASSERT_FALSE(store.append(data.data(), data.size()));
    EXPECT_EQ(read_all(store, 5000), data);
}

}  // namespace
}  // namespace spindle::server
