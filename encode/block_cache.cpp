#include "encode/block_cache.hpp"

#include <cstdlib>
#include <vector>

namespace spindle::encode::block_cache {
namespace {

// Each block starts with its size, padded to keep the caller's part 16-byte aligned.
constexpr std::size_t header_size = 16;

struct thread_blocks {
    std::vector<void*> blocks;  ///< raw blocks (header included), most recently released last
    std::size_t bytes = 0;

    ~thread_blocks() {
        for (void* raw : blocks) {
            std::free(raw);
        }
    }
};

thread_local thread_blocks cache;

std::size_t size_of(void* raw) {
    return *static_cast<std::size_t*>(raw);
}

}  // namespace

void* allocate(std::size_t size) noexcept {
    if (size >= min_cached_size) {
        for (std::size_t i = cache.blocks.size(); i-- > 0;) {
            void* raw = cache.blocks[i];
            if (size_of(raw) == size) {
                cache.blocks.erase(cache.blocks.begin() + static_cast<std::ptrdiff_t>(i));
                cache.bytes -= size;
                return static_cast<char*>(raw) + header_size;
            }
        }
    }
    void* raw = std::malloc(size + header_size);
    if (raw == nullptr) {
        return nullptr;
    }
    *static_cast<std::size_t*>(raw) = size;
    return static_cast<char*>(raw) + header_size;
}

void release(void* block) noexcept {
    if (block == nullptr) {
        return;
    }
    void* raw = static_cast<char*>(block) - header_size;
    const std::size_t size = size_of(raw);
    if (size < min_cached_size) {
        std::free(raw);
        return;
    }
    // Make room by dropping the blocks kept longest; a block larger than the cap is not kept.
    while (!cache.blocks.empty() && cache.bytes + size > max_cached_bytes) {
        cache.bytes -= size_of(cache.blocks.front());
        std::free(cache.blocks.front());
        cache.blocks.erase(cache.blocks.begin());
    }
    if (size > max_cached_bytes) {
        std::free(raw);
        return;
    }
    try {
        cache.blocks.push_back(raw);
    } catch (...) {
        std::free(raw);
        return;
    }
    cache.bytes += size;
}

}  // namespace spindle::encode::block_cache
