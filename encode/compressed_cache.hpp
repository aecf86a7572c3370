#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "encode/content_coding.hpp"

namespace spindle::encode {

/// The compressed forms of static files, so a popular file is compressed once per change
/// rather than once per request (what nginx's gzip_static gives, without precompressed files).
/// Keyed by path, size, modification time and coding: a changed file misses and its old
/// variants age out. Bounded by the bytes it holds; the least recently used variant goes
/// first. Any I/O thread; one mutex, held only for map operations, never while compressing.
class compressed_cache {
  public:
    /// Which compressed bytes an entry holds.
    struct key {
        std::string path;
        std::uint64_t size = 0;
        std::int64_t mtime_ns = 0;
        content_coding coding = content_coding::identity;
    };

    explicit compressed_cache(std::size_t capacity_bytes) : capacity_(capacity_bytes) {}

    /// The cached bytes, or nullptr; a hit becomes the most recently used entry.
    std::shared_ptr<const std::string> find(const key& k);

    /// Stores `bytes` (replacing an entry of the same key), then evicts the least recently
    /// used entries until the cache fits its capacity. A variant larger than the whole
    /// capacity is not kept.
    void insert(const key& k, std::shared_ptr<const std::string> bytes);

    /// Bytes held now.
    std::size_t size_bytes() const;

  private:
    struct entry {
        std::string id;
        std::shared_ptr<const std::string> bytes;
    };

    static std::string id_of(const key& k);

    const std::size_t capacity_;
    mutable std::mutex mutex_;
    std::list<entry> lru_;  ///< mutex_; front: most recently used
    std::unordered_map<std::string, std::list<entry>::iterator> index_;  ///< mutex_
    std::size_t bytes_ = 0;                                              ///< mutex_
};

}  // namespace spindle::encode
