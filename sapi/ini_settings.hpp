#pragma once

#include <string>
#include <string_view>

#include "sapi/php.hpp"

namespace spindle::sapi {

/// Sets a default in PHP's configuration table, as a SAPI's ini_defaults callback does: php.ini
/// and later settings override it.
void set_ini_default(HashTable* configuration, std::string_view name, std::string_view value);

/// The defaults that say where things are on the machine (database sockets, Debian's PHP
/// libraries); the server and php-cli share them, so that a script finds the same database
/// from a request and from the command line.
void add_system_ini_defaults(HashTable* configuration);

/// Appends "name=value" to PHP's ini_entries so that it means what the same line means in a
/// php.ini: a value made only of names, digits, spaces and the operators & | ~ ^ ! ( ) - goes in
/// as written, so "E_ALL & ~E_NOTICE" is evaluated and "Off" is a boolean; a value the user
/// quoted stays as written; anything else is quoted, so that "/var/log/php.log" or
/// "tcp://cache:6379?auth=x" reaches PHP as that string instead of being misparsed. One
/// exception to php.ini: "None" stays the word (session.cookie_samesite), where a php.ini
/// would read an empty string.
void append_ini_entry(std::string& entries, std::string_view name, std::string_view value);

}  // namespace spindle::sapi
