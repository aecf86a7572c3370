#pragma once

#include <vector>

#include "sapi/php.hpp"

namespace spindle::sapi {

/// The process environment, copied once at start-up into persistent, interned PHP strings with
/// precomputed hashes. PHP's php_import_environment_variables hook is pointed at
/// import_into(), so filling $_ENV/$_SERVER costs no locking of `environ` and no string
/// allocation per request. Immutable after construction; shared read-only by all slot threads.
class env_snapshot {
  public:
    /// Copies `environ` (control thread, before any slot thread starts).
    env_snapshot();
    ~env_snapshot();
    env_snapshot(const env_snapshot&) = delete;
    env_snapshot& operator=(const env_snapshot&) = delete;

    /// Adds every variable to `array` (slot thread).
    void import_into(zval* array) const noexcept;

  private:
    struct entry {
        zend_string* name;
        zend_string* value;
    };
    std::vector<entry> entries_;
};

}  // namespace spindle::sapi
