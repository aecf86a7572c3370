#include "sapi/ini_settings.hpp"

#include "sapi/php_paths.hpp"

#include <strings.h>

#include <algorithm>
#include <cctype>

namespace spindle::sapi {

void set_ini_default(HashTable* configuration, std::string_view name, std::string_view value) {
    zval tmp;
    ZVAL_NEW_STR(&tmp, zend_string_init(value.data(), value.size(), 1));
    zend_hash_str_update(configuration, name.data(), name.size(), &tmp);
}

void add_system_ini_defaults(HashTable* configuration) {
    // "localhost" reaches MySQL and MariaDB over their Unix socket, which Debian's servers and
    // the official Docker images put here (Debian's PHP is built with this path); PHP's own
    // default, /tmp/mysql.sock, exists nowhere, and the connection would fail.
    set_ini_default(configuration, "mysqli.default_socket", "/var/run/mysqld/mysqld.sock");
    set_ini_default(configuration, "pdo_mysql.default_socket", "/var/run/mysqld/mysqld.sock");
    // Debian's PHP libraries (php-symfony-*, php-twig, ...) live in /usr/share/php.
    set_ini_default(configuration, "include_path", ".:/usr/share/php");
    // The extensions beside this binary (an installed tree can move; php_paths.hpp).
    set_ini_default(configuration, "extension_dir", current_php_paths().extension_dir);
}

void append_ini_entry(std::string& entries, std::string_view name, std::string_view value) {
    constexpr std::string_view operators = "_ &|~^!()-";
    const bool user_quoted = !value.empty() && (value.front() == '"' || value.front() == '\'');
    // A bare "None" would be read as an empty string, PHP's most common php.ini surprise
    // (session.cookie_samesite None): here it stays the word.
    const bool none = value.size() == 4 && strncasecmp(value.data(), "none", 4) == 0;
    const bool expression = !none && std::all_of(value.begin(), value.end(), [&](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
               operators.find(c) != std::string_view::npos;
    });
    entries.append(name).append("=");
    if (user_quoted || expression) {
        entries.append(value);
    } else {
        entries.append("\"").append(value).append("\"");
    }
    entries.append("\n");
}

}  // namespace spindle::sapi
