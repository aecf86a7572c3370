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

  private:
    struct entry {
        zend_string* name;
        zend_string* value;
    };
    void set(std::string_view name, std::string_view value);

    std::vector<entry> entries_;
    /// The whole environment as a persistent PHP array: a request's array is one
    /// zend_array_dup() of it (a copy of the bucket block) instead of one hash insert per
    /// variable.
    HashTable* array_ = nullptr;
    std::unordered_map<std::string_view, std::size_t> index_;  ///< name -> entries_ position
};

}  // namespace spindle::sapi
