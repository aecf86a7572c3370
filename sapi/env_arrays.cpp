// A classic request's $_SERVER and $_ENV start from arrays the slot thread keeps; see
// env_arrays.hpp for why that is sound. Everything here runs on the slot thread.

#include "sapi/env_arrays.hpp"

#include <utility>

#include "sapi/env_snapshot.hpp"
#include "sapi/php.hpp"

namespace spindle::sapi {
namespace {

// A persistent copy of an environment's prepared array: the same bucket order, the same
// interned keys and values; for $_SERVER the same size (with the prepared room for a
// request's variables), for $_ENV only what the environment needs.
HashTable* make_copy(const HashTable* source, bool for_server) {
    auto* copy = static_cast<HashTable*>(pemalloc(sizeof(HashTable), 1));
    zend_hash_init(copy, for_server ? source->nTableSize : source->nNumUsed, nullptr, ZVAL_PTR_DTOR,
                   1);
    zend_hash_real_init_mixed(copy);
    zend_ulong index;
    zend_string* key;
    zval* value;
    // The FOREACH macros take a mutable table; nothing is written.
    ZEND_HASH_FOREACH_KEY_VAL(const_cast<HashTable*>(source), index, key, value) {
        if (key != nullptr) {
            zend_hash_add_new(copy, key, value);
        } else {
            zend_hash_index_add_new(copy, index, value);
        }
    }
    ZEND_HASH_FOREACH_END();
    return copy;
}

// Only once its values are the environment's interned strings again, or while the request
// memory its other values live in is still allocated.
void destroy(HashTable*& table) noexcept {
    if (table != nullptr) {
        GC_SET_REFCOUNT(table, 1);
        zend_hash_destroy(table);
        pefree(table, 1);
        table = nullptr;
    }
}

}  // namespace

env_arrays::~env_arrays() {
    clear();
}

env_arrays::env_arrays(env_arrays&& other) noexcept {
    *this = std::move(other);
}

env_arrays& env_arrays::operator=(env_arrays&& other) noexcept {
    if (this != &other) {
        clear();
        arrays_ = std::move(other.arrays_);
        other.arrays_.clear();
        server_ = std::exchange(other.server_, {});
        env_ = std::exchange(other.env_, {});
    }
    return *this;
}

bool env_arrays::lend_server(zval* array, const env_snapshot& environment) noexcept {
    return lend(array, environment, true);
}

bool env_arrays::lend_env(zval* array, const env_snapshot& environment) noexcept {
    return lend(array, environment, false);
}

env_arrays::kept* env_arrays::find_or_add(const env_snapshot& environment) noexcept {
    for (kept& k : arrays_) {
        if (k.source == &environment) {
            return &k;
        }
    }
    try {
        arrays_.push_back({&environment, nullptr, nullptr});
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
    return &arrays_.back();
}

bool env_arrays::lend(zval* array, const env_snapshot& environment, bool server) noexcept {
    lent& lent_now = server ? server_ : env_;
    if (lent_now.array != nullptr || Z_TYPE_P(array) != IS_ARRAY) {
        return false;
    }
    HashTable* fresh = Z_ARRVAL_P(array);
    if (zend_hash_num_elements(fresh) != 0 || GC_REFCOUNT(fresh) != 1 ||
        (GC_FLAGS(fresh) & IS_ARRAY_IMMUTABLE) != 0) {
        return false;
    }
    kept* k = find_or_add(environment);
    if (k == nullptr) {
        return false;
    }
    HashTable*& table = server ? k->server : k->env;
    if (table == nullptr) {
        // Once per thread and environment: the only copy of the environment it makes.
        table = make_copy(environment.table(), server);
    }
    zend_array_destroy(fresh);
    // Ours and the request's: no write by the script can reach the array (it separates) and
    // no release can free it.
    GC_ADDREF(table);
    // Debug builds of PHP check that an array written to has one reference; the engine writes
    // this one with two, as it writes $_SERVER after publishing it
    // (php_auto_globals_create_server).
    HT_ALLOW_COW_VIOLATION(table);
    ZVAL_ARR(array, table);
    lent_now = {table, &environment};
    return true;
}

bool env_arrays::restore(HashTable* table, const env_snapshot& environment) noexcept {
    const HashTable* prepared = environment.table();
    const uint32_t count = prepared->nNumUsed;  // the prepared array has no holes
    if (HT_IS_PACKED(table) || table->nNumUsed < count) {
        return false;
    }
    // Zend's allocator frees all request memory at once right after this (and the request
    // values it holds need no release one by one); with USE_ZEND_ALLOC=0 (valgrind, ASan)
    // request memory is plain malloc and every value must be released.
    const bool release_values = !is_zend_mm();
    // 1. Drop what the request appended, last first: each bucket is then the head of its hash
    // chain (a bucket joins its chain at the head, and a rehash rebuilds the chains in bucket
    // order), so unlinking it is one store. A persistent key (zend_hash_str_update() on a
    // persistent array makes one) is always released. nNumUsed follows each step, so a
    // failure leaves an array that zend_hash_destroy() can still walk.
    for (uint32_t idx = table->nNumUsed; idx > count; --idx) {
        Bucket* p = table->arData + idx - 1;
        if (Z_TYPE(p->val) != IS_UNDEF) {
            const uint32_t slot = static_cast<uint32_t>(p->h) | table->nTableMask;
            if (HT_HASH(table, slot) != HT_IDX_TO_HASH(idx - 1)) {
                return false;
            }
            HT_HASH(table, slot) = Z_NEXT(p->val);
            if (p->key != nullptr && !ZSTR_IS_INTERNED(p->key) &&
                (release_values || (GC_FLAGS(p->key) & IS_STR_PERSISTENT) != 0)) {
                zend_string_release(p->key);
            }
            if (release_values) {
                zval_ptr_dtor(&p->val);
            }
            --table->nNumOfElements;
        }
        table->nNumUsed = idx - 1;
    }
    // An environment entry was deleted: rebuild rather than repair.
    if (table->nNumOfElements != count) {
        return false;
    }
    // 2. Environment values a request overwrote in place (a header named like an environment
    // variable, check_http_proxy(), Phar::mungServer()): the old value lives in request memory.
    for (const env_snapshot::entry& e : environment.shadowable()) {
        zval* value = zend_hash_find_known_hash(table, e.name);
        if (value == nullptr) {
            return false;
        }
        if (release_values) {
            zval_ptr_dtor(value);
        }
        ZVAL_INTERNED_STR(value, e.value);
    }
    // 3. What a script may leave on an array it only read: a recursion mark after a bailout
    // inside json_encode() or var_dump(), an iterator count, the internal pointer.
    GC_DEL_FLAGS(table, GC_PROTECTED);
    HT_SET_ITERATORS_COUNT(table, 0);
    table->nInternalPointer = 0;
    table->nNextFreeElement = prepared->nNextFreeElement;
#ifndef NDEBUG
    // Debug builds: every bucket as prepared.
    for (uint32_t i = 0; i < count; ++i) {
        ZEND_ASSERT(table->arData[i].key == prepared->arData[i].key);
        ZEND_ASSERT(table->arData[i].h == prepared->arData[i].h);
        ZEND_ASSERT(Z_TYPE(table->arData[i].val) == IS_STRING);
        ZEND_ASSERT(Z_STR(table->arData[i].val) == Z_STR(prepared->arData[i].val));
    }
#endif
    return true;
}

void env_arrays::take_back() noexcept {
    for (lent* borrowed : {&server_, &env_}) {
        if (borrowed->array == nullptr) {
            continue;
        }
        HashTable* table = borrowed->array;
        if (restore(table, *borrowed->source)) {
            // The request's references are gone with its symbol table and superglobals (a fast
            // shutdown drops the symbol table without releasing what it holds).
            GC_SET_REFCOUNT(table, 1);
        } else {
            for (kept& k : arrays_) {
                if (k.server == table) {
                    destroy(k.server);
                } else if (k.env == table) {
                    destroy(k.env);
                }
            }
        }
        *borrowed = {};
    }
}

void env_arrays::clear() noexcept {
    for (kept& k : arrays_) {
        destroy(k.server);
        destroy(k.env);
    }
    arrays_.clear();
    server_ = {};
    env_ = {};
}

}  // namespace spindle::sapi
