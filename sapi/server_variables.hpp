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
/// array and removes exactly these before its next request; see release_server_keys).
///
/// `raw` skips the input filter whatever filter.default says (getenv() reads the values as
/// received, as php-fpm's does).
///
/// Slot thread, during request start-up. It allocates request memory, so it may bail out
/// (memory_limit) like any PHP allocation; it keeps no C++ object alive across that.
void register_server_variables(slot_context& ctx, zval* track_vars_array,
                               std::vector<zend_string*>* added_keys = nullptr,
                               bool raw = false) noexcept;

/// True when variables_order has 'S': without it PHP leaves $_SERVER empty
/// (php_auto_globals_create_server), and so does Spindle. Slot thread.
bool variables_order_has_server() noexcept;

/// Releases the references `keys` holds and empties it. Slot thread, while the request memory
/// the keys may live in is still allocated (before php_request_shutdown()).
void release_server_keys(std::vector<zend_string*>& keys) noexcept;

}  // namespace spindle::sapi
