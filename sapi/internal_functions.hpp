#pragma once

#include "sapi/php.hpp"

namespace spindle::sapi {

/// Points the calling thread's entry of the internal function NAME at HANDLER; a function
/// that is not there (its extension not built in) is left alone. In ZTS every thread copies
/// the internal function table in ts_resource(), so each slot thread calls this for itself.
void replace_internal_handler(const char* name, zif_handler handler) noexcept;

}  // namespace spindle::sapi
