#include "sapi/env_snapshot.hpp"

#include <cstring>

#include "sapi/server_keys.hpp"

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

// Room left in the prepared array for what a request adds to $_SERVER (CGI variables and
// headers; a typical request adds 30 to 50).
constexpr uint32_t request_variables_room = 64;

// A name a request may set in $_SERVER (or PHP's check_http_proxy() in $_ENV).
bool is_request_name(std::string_view name) {
    if (name.starts_with("HTTP_") || name == "argv" || name == "argc") {
        return true;
    }
    for (std::size_t i = 0; i < static_cast<std::size_t>(server_key::count); ++i) {
        if (name == to_string(static_cast<server_key>(i))) {
            return true;
        }
    }
    return false;
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
    zend_hash_init(array_, static_cast<uint32_t>(entries_.size()) + request_variables_room, nullptr,
                   nullptr, 1);
    // Hashed even when empty, so that the copy a request gets is too.
    zend_hash_real_init_mixed(array_);
    for (const entry& e : entries_) {
        zval value;
        ZVAL_INTERNED_STR(&value, e.value);
        zend_symtable_update(array_, e.name, &value);
    }
    GC_ADD_FLAGS(array_, IS_ARRAY_IMMUTABLE);
    for (const entry& e : entries_) {
        if (is_request_name(std::string_view(ZSTR_VAL(e.name), ZSTR_LEN(e.name)))) {
            shadowable_.push_back(e);
        }
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
    GC_DEL_FLAGS(array_, IS_ARRAY_IMMUTABLE);
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

const zval* env_snapshot::find_value(zend_string* name) const noexcept {
    return zend_hash_find_known_hash(array_, name);
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
