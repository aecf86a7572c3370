# Finds the ZTS libphp (embed SAPI) that scripts/build-php.sh installs and
# makes it the imported target php::embed.
#
# Input:  PHP_CONFIG (cache) - path to that build's php-config. When unset, the
#         newest build under $SPINDLE_CACHE (default /var/cache/spindle) is used.
# Output: php::embed, PHP_VERSION_STRING, PHP_EXTENSION_DIR, PHP_PREFIX

if(NOT PHP_CONFIG)
  set(_spindle_cache "$ENV{SPINDLE_CACHE}")
  if(NOT _spindle_cache)
    set(_spindle_cache "/var/cache/spindle")
  endif()
  file(GLOB _candidates "${_spindle_cache}/php-*/bin/php-config")
  list(SORT _candidates)
  list(REVERSE _candidates)
  foreach(_candidate IN LISTS _candidates)
    get_filename_component(_dir "${_candidate}" DIRECTORY)
    if(EXISTS "${_dir}/../.complete")
      set(PHP_CONFIG "${_candidate}" CACHE FILEPATH "php-config of the ZTS embed build" FORCE)
      break()
    endif()
  endforeach()
endif()

if(NOT PHP_CONFIG OR NOT EXISTS "${PHP_CONFIG}")
  message(FATAL_ERROR "No ZTS libphp found. Run scripts/build-php.sh, or pass -DPHP_CONFIG=/path/to/php-config.")
endif()

function(_php_config out flag)
  execute_process(COMMAND "${PHP_CONFIG}" ${flag} OUTPUT_VARIABLE _value
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${PHP_CONFIG} ${flag} failed")
  endif()
  set(${out} "${_value}" PARENT_SCOPE)
endfunction()

_php_config(PHP_PREFIX --prefix)
_php_config(PHP_VERSION_STRING --version)
_php_config(PHP_EXTENSION_DIR --extension-dir)
_php_config(_php_include_dir --include-dir)

# Spindle runs PHP on many threads at once: a non-ZTS libphp would corrupt its
# globals on the first concurrent request, so refuse it here, not at run time.
file(STRINGS "${_php_include_dir}/main/php_config.h" _zts REGEX "^#define ZTS 1")
if(NOT _zts)
  message(FATAL_ERROR "${PHP_CONFIG} belongs to a non-thread-safe (NTS) PHP. Spindle needs a ZTS build "
                      "(--enable-zts --enable-embed); run scripts/build-php.sh.")
endif()

# Zend signals swap process-wide handlers per request and read TSRM globals of whichever thread
# a signal hits, which breaks in a multi-threaded server that owns SIGTERM.
file(STRINGS "${_php_include_dir}/main/php_config.h" _zend_signals REGEX "^#define ZEND_SIGNALS 1")
if(_zend_signals)
  message(FATAL_ERROR "${PHP_CONFIG} belongs to a PHP built with Zend signals. Rebuild it with "
                      "--disable-zend-signals (scripts/build-php.sh does).")
endif()

# Looked up again at each configure: a build folder pointed at another PHP (-DPHP_CONFIG=...)
# must not keep linking the library find_library() cached for the previous one.
unset(PHP_EMBED_LIBRARY CACHE)
find_library(PHP_EMBED_LIBRARY NAMES php PATHS "${PHP_PREFIX}/lib" NO_DEFAULT_PATH)
if(NOT PHP_EMBED_LIBRARY)
  message(FATAL_ERROR "libphp not found under ${PHP_PREFIX}/lib: PHP was not built with --enable-embed")
endif()

add_library(php::embed SHARED IMPORTED)
set_target_properties(php::embed PROPERTIES
  IMPORTED_LOCATION "${PHP_EMBED_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES
  "${_php_include_dir};${_php_include_dir}/main;${_php_include_dir}/TSRM;${_php_include_dir}/Zend;${_php_include_dir}/ext;${_php_include_dir}/ext/date/lib")

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(PHPEmbed REQUIRED_VARS PHP_EMBED_LIBRARY PHP_PREFIX VERSION_VAR PHP_VERSION_STRING)
