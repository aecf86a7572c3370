// Runs on the thread whose function table it changes.

#include "sapi/internal_functions.hpp"

#include <cstring>

namespace spindle::sapi {

void replace_internal_handler(const char* name, zif_handler handler) noexcept {
    auto* entry = static_cast<zend_function*>(
        zend_hash_str_find_ptr(CG(function_table), name, std::strlen(name)));
    if (entry != nullptr && entry->type == ZEND_INTERNAL_FUNCTION) {
        entry->internal_function.handler = handler;
    }
}

}  // namespace spindle::sapi
