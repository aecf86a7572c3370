#include "encode/block_cache.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>

namespace spindle::encode {
namespace {

TEST(BlockCache, LargeBlockIsHandedOutAgainForTheSameSize) {
    void* first = block_cache::allocate(200'000);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first) % 16, 0u);
    std::memset(first, 0xab, 200'000);
    block_cache::release(first);
    void* other_size = block_cache::allocate(300'000);
    void* again = block_cache::allocate(200'000);
    EXPECT_EQ(again, first);
    EXPECT_NE(other_size, first);
    block_cache::release(again);
    block_cache::release(other_size);
    block_cache::release(nullptr);
}

TEST(BlockCache, BlocksReleasedOnAnotherThreadStayThere) {
    void* block = block_cache::allocate(150'000);
    std::thread([block] { block_cache::release(block); }).join();
    void* next = block_cache::allocate(150'000);
    ASSERT_NE(next, nullptr);
    std::memset(next, 0, 150'000);
    block_cache::release(next);
}

TEST(BlockCache, KeepsNoMoreThanItsCap) {
    // Two blocks of 60% of the cap: the second release pushes the first out, and a block over
    // the cap is never kept; each comes back as fresh memory, which ASan would flag if reused.
    const std::size_t big = block_cache::max_cached_bytes / 10 * 6;
    void* a = block_cache::allocate(big);
    void* b = block_cache::allocate(big);
    block_cache::release(a);
    block_cache::release(b);
    void* again = block_cache::allocate(big);
    EXPECT_EQ(again, b);
    block_cache::release(again);
    void* huge = block_cache::allocate(block_cache::max_cached_bytes + 1);
    ASSERT_NE(huge, nullptr);
    block_cache::release(huge);
}

}  // namespace
}  // namespace spindle::encode
