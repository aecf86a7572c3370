#pragma once

#include <vector>

// PHP types, without the PHP headers (slot_context.hpp includes this file).
struct _zend_array;
struct _zval_struct;

namespace spindle::sapi {

class env_snapshot;

/// A slot thread's own $_SERVER and $_ENV starting points for classic requests, so that a
/// request costs the same with 10 or 1,000 environment variables.
///
/// Without them every classic request copies the environment into $_SERVER and $_ENV (a
/// zend_array_dup() each: tens of kilobytes with 1,000 variables). Here each slot thread
/// keeps, per environment, two persistent arrays holding exactly the environment. A request
/// borrows them (they become PG(http_globals)[TRACK_VARS_SERVER] / [TRACK_VARS_ENV], with one
/// extra reference held here), adds its own variables after the environment's, and
/// take_back() returns them to exactly the environment before the request's memory is freed.
///
/// Why that is sound: PHP's arrays are copy-on-write, and the extra reference keeps every
/// write from a script (`$_SERVER['X'] = ...`, sort($_SERVER), a reference to an element)
/// off the borrowed array: the script's copy separates first. Only engine code that writes
/// into PG(http_globals) in place reaches it, and in PHP 8.2 that is php_variables.c
/// (php_register_server_variables, php_build_argv, check_http_proxy), ext/filter while the
/// array is built, and ext/phar (Phar::mungServer). All of them either add entries (after the
/// environment's, removed by take_back) or overwrite names the environment may also have
/// (env_snapshot::shadowable(), restored by take_back). A deleted environment entry is caught
/// by take_back's count check, and the array is then rebuilt.
///
/// Worker mode keeps its own $_SERVER across requests (worker_request.cpp) and never uses
/// this. Touched only by the slot thread that owns it.
class env_arrays {
  public:
    env_arrays() = default;
    ~env_arrays();
    env_arrays(const env_arrays&) = delete;
    env_arrays& operator=(const env_arrays&) = delete;
    env_arrays(env_arrays&& other) noexcept;
    env_arrays& operator=(env_arrays&& other) noexcept;

    /// Replaces `array`, the empty array PHP just made for $_SERVER, with this thread's
    /// environment array for `environment`. False (nothing changed) when it cannot: `array`
    /// is not a fresh empty array, or $_SERVER was already lent in this request.
    bool lend_server(_zval_struct* array, const env_snapshot& environment) noexcept;

    /// The same for $_ENV.
    bool lend_env(_zval_struct* array, const env_snapshot& environment) noexcept;

    /// Returns what this request borrowed to exactly its environment: drops the request's
    /// entries (leaving their values to the release of all request memory that follows, unless
    /// PHP runs without its allocator), restores overwritten environment values,
    /// clears the recursion and iterator marks, and resets the reference count to this
    /// holder's one. Slot thread, at the end of a classic request after the superglobals and
    /// the symbol table are gone and before the request memory is freed (the SAPI deactivate
    /// callback): the dropped values live in that memory, which is freed right after.
    void take_back() noexcept;

    /// Frees every array. Slot thread, outside any request (the thread is ending).
    void clear() noexcept;

  private:
    struct kept {
        const env_snapshot* source = nullptr;
        _zend_array* server = nullptr;
        _zend_array* env = nullptr;
    };
    struct lent {
        _zend_array* array = nullptr;
        const env_snapshot* source = nullptr;
    };

    bool lend(_zval_struct* array, const env_snapshot& environment, bool server) noexcept;
    kept* find_or_add(const env_snapshot& environment) noexcept;
    /// False when the array no longer holds exactly its environment and must be rebuilt.
    static bool restore(_zend_array* array, const env_snapshot& environment) noexcept;

    std::vector<kept> arrays_;  ///< one per environment this thread has served
    lent server_;               ///< $_SERVER lent to the current request
    lent env_;                  ///< $_ENV lent to the current request
};

}  // namespace spindle::sapi
