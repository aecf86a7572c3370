#include "encode/compressed_cache.hpp"

namespace spindle::encode {

std::string compressed_cache::id_of(const key& k) {
    // Fixed-width fields first, so no path can be mistaken for another key's fields.
    std::string id;
    id.reserve(k.path.size() + 24);
    id.push_back(static_cast<char>(k.coding));
    id.append(reinterpret_cast<const char*>(&k.size), sizeof k.size);
    id.append(reinterpret_cast<const char*>(&k.mtime_ns), sizeof k.mtime_ns);
    id.append(k.path);
    return id;
}

std::shared_ptr<const std::string> compressed_cache::find(const key& k) {
    const std::string id = id_of(k);
    std::lock_guard lock(mutex_);
    const auto it = index_.find(id);
    if (it == index_.end()) {
        return nullptr;
    }
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->bytes;
}

void compressed_cache::insert(const key& k, std::shared_ptr<const std::string> bytes) {
    if (bytes == nullptr || bytes->size() > capacity_) {
        return;
    }
    std::string id = id_of(k);
    std::lock_guard lock(mutex_);
    if (const auto it = index_.find(id); it != index_.end()) {
        bytes_ -= it->second->bytes->size();
        lru_.erase(it->second);
        index_.erase(it);
    }
    bytes_ += bytes->size();
    lru_.push_front({id, std::move(bytes)});
    index_.emplace(std::move(id), lru_.begin());
    while (bytes_ > capacity_) {
        const entry& oldest = lru_.back();
        bytes_ -= oldest.bytes->size();
        index_.erase(oldest.id);
        lru_.pop_back();
    }
}

std::size_t compressed_cache::size_bytes() const {
    std::lock_guard lock(mutex_);
    return bytes_;
}

}  // namespace spindle::encode
