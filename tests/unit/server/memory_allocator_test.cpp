#include "server/process/memory_allocator.hpp"

#include <gtest/gtest.h>

namespace spindle::server {
namespace {

// The build links jemalloc ahead of the C library (SPINDLE_MALLOC, CMakeLists.txt); this fails
// if the linker dropped it or the C library's malloc came first in load order.
TEST(MemoryAllocator, MallocComesFromTheConfiguredLibrary) {
#ifdef SPINDLE_EXPECT_MALLOC_LIBRARY
    EXPECT_TRUE(malloc_library().starts_with(SPINDLE_EXPECT_MALLOC_LIBRARY)) << malloc_library();
#else
    EXPECT_FALSE(malloc_library().empty());
#endif
}

}  // namespace
}  // namespace spindle::server
