#include "sapi/realpath_function.hpp"

// zend_virtual_cwd.h, which php.h includes, lacks the extern "C" wrapper (virtual_realpath()
// would be looked up under a C++ name): php.h is included in one here, before php.hpp.
extern "C" {
#include <php.h>
}

#include "sapi/internal_functions.hpp"
#include "sapi/php.hpp"

#include <main/fopen_wrappers.h>

namespace spindle::sapi {

namespace {

// PHP_FUNCTION(realpath) of ext/standard/file.c without its ZTS-only access(resolved, F_OK):
// VCWD_REALPATH() (virtual_file_ex() with CWD_REALPATH) returns nothing for a path that does
// not exist, from the realpath cache or from lstat(), exactly as tsrm_realpath() does in a
// php-fpm child, so the answer is the one php-fpm gives, one system call cheaper. Runs on
// the PHP thread that calls realpath().
ZEND_NAMED_FUNCTION(zif_spindle_realpath) {
    char* filename = nullptr;
    size_t filename_len = 0;
    char resolved[MAXPATHLEN];

    ZEND_PARSE_PARAMETERS_START(1, 1)
    Z_PARAM_PATH(filename, filename_len)
    ZEND_PARSE_PARAMETERS_END();
    (void)filename_len;

    if (VCWD_REALPATH(filename, resolved) == nullptr) {
        RETURN_FALSE;
    }
    if (php_check_open_basedir(resolved) != 0) {
        RETURN_FALSE;
    }
    RETURN_STRING(resolved);
}

}  // namespace

void install_realpath_function() {
    replace_internal_handler("realpath", zif_spindle_realpath);
}

}  // namespace spindle::sapi
