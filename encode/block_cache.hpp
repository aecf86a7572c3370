#pragma once

#include <cstddef>

namespace spindle::encode {

/// Memory for the compressors' per-stream state (hash tables, windows, ring buffers), kept on
/// the thread that released it for that thread's next stream.
///
/// Each response is its own compressed stream, and its state is large (zstd level 3: about
/// 1 MiB, brotli quality 5: several MiB). glibc gives blocks that large back to the kernel when
/// they are freed (mmap threshold, trimming of thread arenas), so every response would fault
/// its state in again: measured on the 50 KB page of bench/run.sh, that cost zstd 8x and
/// brotli 4x the CPU of compressing. Blocks of at least `min_cached_size` are kept, up to
/// `max_cached_bytes` per thread, and handed out again for an exact size match; a thread's
/// blocks are freed when it ends. Any thread; no locks (the cache is thread_local).
namespace block_cache {

/// Smaller blocks go straight back to malloc, which keeps them well.
constexpr std::size_t min_cached_size = 64 * 1024;
/// Bytes a thread keeps at most. Measured per stream: gzip 266 KiB; zstd 745 KiB for a 50 KB
/// body of known size, 3.5 MiB streamed; brotli 1.8 MiB for the 50 KB body. A thread serving
/// one coding keeps its state; one alternating between all three keeps the most recent.
constexpr std::size_t max_cached_bytes = 8 * 1024 * 1024;

/// A block of `size` bytes, 16-byte aligned; nullptr when out of memory.
void* allocate(std::size_t size) noexcept;

/// Returns a block from allocate() (nullptr is ignored); from any thread.
void release(void* block) noexcept;

}  // namespace block_cache
}  // namespace spindle::encode
