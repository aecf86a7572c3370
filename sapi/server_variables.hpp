#pragma once

#include <vector>

#include "sapi/php.hpp"
#include "sapi/slot_context.hpp"

namespace spindle::sapi {

/// Prepares what every $_SERVER build shares: the interned keys (create_server_keys) and
/// whether values must pass PHP's input filter. Control thread, once, after
/// php_module_startup() (php.ini is loaded) and before any slot thread starts.
///
/// filter.default is PHP_INI_SYSTEM|PHP_INI_PERDIR: no script can change it with ini_set(),
/// and Spindle reads no per-directory ini files, so it is fixed from here on.
void init_server_variables();

/// Frees what init_server_variables() made. Control thread, after php_module_shutdown().
void shutdown_server_variables() noexcept;

/// Adds the CGI/1.1 variables, FrankenPHP-compatible extras and one HTTP_* entry per request
/// header name (repeated headers joined with ", ", Cookie with "; ") for the slot's current
/// request to `track_vars_array` ($_SERVER), in one pass: the table is grown once, keys are
/// the prepared interned strings (common header names) or this thread's cached conversion
/// (other names), values go in with zend_hash_update(), or through the input filter
/// (sapi_module.input_filter(PARSE_SERVER), as php-fpm does) when filter.default names a
/// filter other than unsafe_raw. Content-Type and Content-Length are CONTENT_TYPE and
/// CONTENT_LENGTH only; a Proxy header never becomes HTTP_PROXY (httpoxy).
///
/// In worker mode (ctx.worker set) it adds FRANKENPHP_WORKER=1. `added_keys`, when given,
/// receives a reference to the key of every variable added, in order (worker mode reuses the
/// array for its next request: reuse_server_variables; see release_server_keys).
///
/// `raw` skips the input filter whatever filter.default says (getenv() reads the values as
/// received, as php-fpm's does).
///
/// Slot thread, during request start-up. It allocates request memory, so it may bail out
/// (memory_limit) like any PHP allocation; it keeps no C++ object alive across that.
void register_server_variables(slot_context& ctx, zval* track_vars_array,
                               std::vector<zend_string*>* added_keys = nullptr,
                               bool raw = false) noexcept;

/// Worker mode: turns the $_SERVER `table` of the thread's previous request into the current
/// request's, without copying the environment part again. `keys` lists, in order, the
/// variables the previous request added (after the environment's entries, which come first);
/// on return it lists this request's. The result is what a fresh build would give, in
/// content and in order: register_server_variables()'s variables, then PHP's own
/// (PHP_AUTH_USER, PHP_AUTH_PW, PHP_AUTH_DIGEST when set, REQUEST_TIME_FLOAT, REQUEST_TIME).
/// Keys that come again at the same position keep their bucket and get the new value (a
/// stream of requests with the same header names touches no bucket); from the first that
/// differs, the previous request's remaining keys are deleted, or get the environment's value
/// back where they had shadowed it, and the rest is added. PG(http_globals)[TRACK_VARS_SERVER]
/// must already be `table` (the input filter registers into it). Slot thread, during request
/// start-up; may bail out as register_server_variables() may, leaving in `keys` every request
/// key the table holds.
void reuse_server_variables(slot_context& ctx, HashTable* table,
                            std::vector<zend_string*>& keys) noexcept;

/// After PHP built a fresh $_SERVER: adds to `keys` those of the variables PHP adds after the
/// SAPI's that this request has, in PHP's order (see reuse_server_variables). Slot thread.
void note_engine_server_variables(std::vector<zend_string*>& keys) noexcept;

/// True when variables_order has 'S': without it PHP leaves $_SERVER empty
/// (php_auto_globals_create_server), and so does Spindle. Slot thread.
bool variables_order_has_server() noexcept;

/// Releases the references `keys` holds and empties it. Slot thread, while the request memory
/// the keys may live in is still allocated (before php_request_shutdown()).
void release_server_keys(std::vector<zend_string*>& keys) noexcept;

/// Drops a worker's kept $_SERVER (its reference to the array and its keys'). Slot thread,
/// inside the worker script's request (its keys may live in that request's memory).
void release_kept_server(kept_server_array& kept) noexcept;

}  // namespace spindle::sapi
