#include "sapi/env_snapshot.hpp"

#include <cstring>

extern char** environ;

namespace spindle::sapi {
namespace {

// A persistent string flagged as interned: PHP never reference-counts or frees an interned
// string, so many threads can put the same one into their arrays at once. The hash is computed
// here, before any sharing, because zend_hash computes it lazily (a write) otherwise.
zend_string* make_shared_string(std::string_view text) {
    zend_string* s = zend_string_init(text.data(), text.size(), 1);
    GC_TYPE_INFO(s) = GC_STRING | ((IS_STR_INTERNED | IS_STR_PERSISTENT) << GC_FLAGS_SHIFT);
    zend_string_hash_val(s);
    return s;
}

bool is_valid_name(std::string_view name) {
    return !name.empty() && name.find('=') == std::string_view::npos &&
           name.find('\0') == std::string_view::npos;
}

}  // namespace

env_snapshot::env_snapshot(const std::vector<const layer*>& layers) {
    for (char** env = environ; env != nullptr && *env != nullptr; ++env) {
        std::string_view pair(*env);
        auto equals = pair.find('=');
        // "=value" and entries without '=' are not variables PHP would show either.
        if (equals == std::string_view::npos || equals == 0) {
            continue;
        }
        set(pair.substr(0, equals), pair.substr(equals + 1));
    }
    for (const layer* entries : layers) {
        for (const auto& [name, value] : *entries) {
            if (is_valid_name(name) && value.find('\0') == std::string::npos) {
                set(name, value);
            }
        }
    }
    array_ = static_cast<HashTable*>(malloc(sizeof(HashTable)));
    zend_hash_init(array_, static_cast<uint32_t>(entries_.size()), nullptr, nullptr, 1);
    for (const entry& e : entries_) {
        zval value;
        ZVAL_INTERNED_STR(&value, e.value);
        zend_symtable_update(array_, e.name, &value);
    }
}

void env_snapshot::set(std::string_view name, std::string_view value) {
    auto it = index_.find(name);
    if (it != index_.end()) {
        free(entries_[it->second].value);
        entries_[it->second].value = make_shared_string(value);
        return;
    }
    zend_string* key = make_shared_string(name);
    entries_.push_back({key, make_shared_string(value)});
    index_.emplace(std::string_view(ZSTR_VAL(key), ZSTR_LEN(key)), entries_.size() - 1);
}

env_snapshot::~env_snapshot() {
    zend_hash_destroy(array_);
    free(array_);
    for (const entry& e : entries_) {
        free(e.name);
        free(e.value);
    }
}

void env_snapshot::import_into(zval* array) const noexcept {
    HashTable* table = Z_ARRVAL_P(array);
    if (zend_hash_num_elements(table) == 0 && !(GC_FLAGS(table) & IS_ARRAY_IMMUTABLE) &&
        GC_REFCOUNT(table) == 1) {
        // The usual case ($_SERVER, $_ENV, getenv() start empty): take a copy of the whole
        // prepared array.
        zend_array_destroy(table);
        ZVAL_ARR(array, zend_array_dup(array_));
        return;
    }
    if (!HT_IS_PACKED(table)) {
        // One allocation instead of rehashing as the table grows.
        zend_hash_extend(table, zend_hash_num_elements(table) + entries_.size(), 0);
    }
    for (const entry& e : entries_) {
        zval value;
        ZVAL_INTERNED_STR(&value, e.value);
        zend_symtable_update(table, e.name, &value);
    }
}

zend_string* env_snapshot::find_string(std::string_view name) const noexcept {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : entries_[it->second].value;
}

std::optional<std::string_view> env_snapshot::find(std::string_view name) const noexcept {
    const zend_string* value = find_string(name);
    if (value == nullptr) {
        return std::nullopt;
    }
    return std::string_view(ZSTR_VAL(value), ZSTR_LEN(value));
}

}  // namespace spindle::sapi
