// The working directory of a classic script: its own directory, entered without PHP's way back.
//
// php_execute_script() enters the script's directory and, once the script ends, goes back to
// the one the thread started the request in: two stat() calls of the virtual working
// directory, and the way back is wasted, since request shutdown discards that directory
// anyway (virtual_cwd_deactivate). With SAPI_OPTION_NO_CHDIR set, Spindle enters the directory
// itself and stays there: one stat(), 45.4 -> 43.0 us of server CPU per classic hello request
// (bench/RESULTS.md). Shutdown functions and the destructors that run at the end see the
// script's directory too, where php-fpm would have them see its own.
//
// C, not C++: the Zend header declares the virtual working directory functions without C
// linkage for C++ translation units.
#include <php.h>

#include <SAPI.h>

#include "sapi/script_directory.h"

void spindle_enter_script_directory(const char* script) {
    SG(options) |= SAPI_OPTION_NO_CHDIR;
    // As php_execute_script() would: the directory with its symlinks resolved; a directory
    // that cannot be entered leaves the working directory where it was.
    VCWD_CHDIR_FILE(script);
}

void spindle_leave_script_directory(void) {
    SG(options) &= ~SAPI_OPTION_NO_CHDIR;
}
