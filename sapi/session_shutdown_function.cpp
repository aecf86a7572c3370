// session_register_shutdown() for worker requests. Runs on the slot thread that calls it.

#include "sapi/session_shutdown_function.hpp"

#include <cstring>

#include "sapi/internal_functions.hpp"
#include "sapi/php.hpp"
#include "sapi/slot_context.hpp"

namespace spindle::sapi {
namespace {

constexpr const char* name = "session_register_shutdown";

// PHP's handler, the same in every thread's copy of the function table; null without the
// session extension.
zif_handler php_handler() noexcept {
    static const zif_handler handler = [] {
        auto* entry = static_cast<zend_function*>(
            zend_hash_str_find_ptr(CG(function_table), name, std::strlen(name)));
        return entry != nullptr && entry->type == ZEND_INTERNAL_FUNCTION
                   ? entry->internal_function.handler
                   : nullptr;
    }();
    return handler;
}

ZEND_NAMED_FUNCTION(zif_spindle_session_register_shutdown) {
    const slot_context* ctx = current_slot();
    if (ctx != nullptr && ctx->in_worker_request) {
        ZEND_PARSE_PARAMETERS_NONE();
        return;
    }
    php_handler()(execute_data, return_value);
}

}  // namespace

void install_session_shutdown_function() {
    if (php_handler() != nullptr) {
        replace_internal_handler(name, zif_spindle_session_register_shutdown);
    }
}

}  // namespace spindle::sapi
