#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

// zend_string, without the PHP headers (slot_context.hpp includes this file).
struct _zend_string;

namespace spindle::sapi {

/// The $_SERVER names Spindle sets that are not request headers.
enum class server_key : std::uint8_t {
    frankenphp_worker,
    server_software,
    gateway_interface,
    server_protocol,
    request_scheme,
    https,
    ssl_protocol,
    ssl_cipher,
    server_name,
    server_addr,
    server_port,
    remote_addr,
    remote_host,
    remote_port,
    request_method,
    request_uri,
    query_string,
    document_root,
    document_uri,
    script_filename,
    script_name,
    path_info,
    path_translated,
    php_self,
    content_type,
    content_length,
    auth_type,
    remote_ident,
    remote_user,
    // Added by PHP itself after the SAPI's variables (php_register_server_variables); worker
    // mode adds them the same way.
    php_auth_user,
    php_auth_pw,
    php_auth_digest,
    request_time_float,
    request_time,
    count
};

/// The name as PHP sees it ("SERVER_SOFTWARE").
std::string_view to_string(server_key key) noexcept;

/// Creates the process-wide keys: one persistent string per server_key and per common request
/// header name (about a hundred, taken from the headers browsers, proxies and CDNs send), each
/// with its hash computed and flagged interned so that PHP never reference-counts or frees it.
/// Any number of slot threads may then insert them into their arrays at once.
///
/// Control thread, once, after php_module_startup() and before any slot thread starts. Not
/// through zend_new_interned_string(): after start-up OPcache replaces that handler with one
/// that returns an uninterned, reference-counted copy for strings it did not already have.
void create_server_keys();

/// Frees what create_server_keys() made. Control thread, after every slot thread ended and
/// php_module_shutdown() ran (no PHP array that could hold a key is left).
void destroy_server_keys() noexcept;

/// The key of a server_key; valid between create_server_keys() and destroy_server_keys().
/// Any thread.
_zend_string* key_of(server_key key) noexcept;

/// The key of a common request header, found case-insensitively ("user-agent" and
/// "User-Agent" both give HTTP_USER_AGENT); null for any other name. Any thread.
_zend_string* common_header_key(std::string_view header_name) noexcept;

/// "X-Foo-Bar" -> "HTTP_X_FOO_BAR" into `out`; false (and `out` unspecified) when the name
/// is empty or has a byte other than a letter, digit or '-', so no key ever holds a NUL, a
/// '_' that would shadow another header, or anything PHP would mangle.
bool http_variable_name(std::string_view header_name, std::string& out);

/// Uncommon header names converted to their HTTP_* key once per slot thread, not once per
/// request. Two-way set-associative on a hash of the name's bytes: bounded at `capacity`
/// entries, a new name replaces the less recently used one of its set, so clients sending
/// random names cannot grow it.
///
/// The cached strings are owned by the cache alone and never put into a PHP array (a
/// worker's arrays outlive any eviction): a request inserts a copy made in its own memory, a
/// memcpy with the hash carried over. Only the conversion is cached.
///
/// Touched only by the slot thread that owns it (it lives in the slot's context).
class header_key_cache {
  public:
    static constexpr std::size_t capacity = 256;

    header_key_cache() = default;
    ~header_key_cache();
    header_key_cache(const header_key_cache&) = delete;
    header_key_cache& operator=(const header_key_cache&) = delete;
    /// Takes the entries (slot contexts are moved while their array is sized).
    header_key_cache(header_key_cache&& other) noexcept;
    header_key_cache& operator=(header_key_cache&& other) noexcept;

    /// The HTTP_* name of `header_name` as a persistent string with its hash set, owned by the
    /// cache and valid until the next call; null when the name is not acceptable (see
    /// http_variable_name). Converts on a miss.
    _zend_string* find_or_convert(std::string_view header_name) noexcept;

    /// Frees every entry.
    void clear() noexcept;

  private:
    struct entry {
        std::uint64_t hash = 0;
        std::string name;             ///< the header name as received
        _zend_string* key = nullptr;  ///< its HTTP_* name; null when the entry is free
    };
    std::array<entry, capacity> entries_;
    std::array<std::uint8_t, capacity / 2> recent_{};  ///< per set: the way used last
    std::string scratch_;                              ///< conversion buffer, reused
};

}  // namespace spindle::sapi
