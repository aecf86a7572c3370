#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sapi/php.hpp"

namespace spindle::sapi {

/// One environment as PHP sees it: the process environment copied once at start-up, with the
/// server's and a worker's `env` entries laid over it, in persistent, interned PHP strings
/// with precomputed hashes. PHP's php_import_environment_variables hook fills $_ENV/$_SERVER
/// from it, so a request pays no locking of `environ` and no string allocation for it.
/// Immutable after construction; shared read-only by every slot thread.
class env_snapshot {
  public:
    using layer = std::vector<std::pair<std::string, std::string>>;

    /// Copies `environ`, then applies `layers` in order, later ones winning (control thread,
    /// before any slot thread starts). Names with '=' or NUL, and empty names, are skipped.
    explicit env_snapshot(const std::vector<const layer*>& layers);
    ~env_snapshot();
    env_snapshot(const env_snapshot&) = delete;
    env_snapshot& operator=(const env_snapshot&) = delete;

    /// Adds every variable to `array` (slot thread).
    void import_into(zval* array) const noexcept;

    /// The value of `name`, if set (any thread).
    std::optional<std::string_view> find(std::string_view name) const noexcept;

    /// The same as an interned PHP string, or null (any thread).
    zend_string* find_string(std::string_view name) const noexcept;

    /// The value of `name` as it sits in the prepared array (an interned string), or null.
    /// One hash lookup with the key's hash, which must be set (any thread).
    const zval* find_value(zend_string* name) const noexcept;

    /// The prepared array: every variable, in a fixed order, keys and values interned. Only
    /// read (any thread); never hand it to PHP as a value.
    const HashTable* table() const noexcept { return array_; }

    struct entry {
        zend_string* name;
        zend_string* value;
    };

    /// The variables whose names a request may overwrite in $_SERVER or $_ENV: the names
    /// Spindle or PHP set per request (server_key), any HTTP_* name, and argv/argc. Usually
    /// none (any thread).
    const std::vector<entry>& shadowable() const noexcept { return shadowable_; }

  private:
    void set(std::string_view name, std::string_view value);

    std::vector<entry> entries_;
    /// The whole environment as a persistent PHP array: a request's array is one
    /// zend_array_dup() of it instead of one hash insert per variable. It is flagged
    /// immutable, which makes that copy a single memcpy of the bucket and hash blocks (no
    /// per-element loop; every key and value is interned, so nothing needs a reference), and
    /// sized with room for a request's own variables, so that adding them never rehashes.
    /// Never handed to PHP itself.
    HashTable* array_ = nullptr;
    std::unordered_map<std::string_view, std::size_t> index_;  ///< name -> entries_ position
    std::vector<entry> shadowable_;
};

}  // namespace spindle::sapi
