// The pcntl functions a request must not call in the threaded server. Runs on the slot
// thread calling them.

#include "sapi/pcntl_guard.hpp"

#include <initializer_list>

#include "sapi/internal_functions.hpp"
#include "sapi/php.hpp"

namespace spindle::sapi {
namespace {

ZEND_FUNCTION(spindle_refused_pcntl) {
    // The arguments are not parsed: nothing the caller passes makes the call possible.
    zend_throw_error(nullptr,
                     "%s() is not available in Spindle's server: every PHP thread shares one "
                     "process; run the script with `spindle php-cli`, which has all of pcntl",
                     ZSTR_VAL(EX(func)->common.function_name));
}

}  // namespace

void refuse_process_wide_pcntl() {
    for (const char* name : {"pcntl_fork", "pcntl_rfork", "pcntl_exec", "pcntl_signal",
                             "pcntl_alarm", "pcntl_unshare"}) {
        replace_internal_handler(name, zif_spindle_refused_pcntl);
    }
}

}  // namespace spindle::sapi
