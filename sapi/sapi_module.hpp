#pragma once

#include "sapi/php.hpp"

namespace spindle::sapi {

/// Spindle's SAPI callback table (sapi_module.cpp). Process-global because PHP keeps exactly one
/// active SAPI; filled in once by the engine before start-up.
extern sapi_module_struct spindle_sapi_module;

/// Sends the headers PHP collected so far to the sink as the final response head (or as a 1xx
/// interim response when the status is 1xx). Slot thread.
int send_headers_to_sink(sapi_headers_struct* headers) noexcept;

}  // namespace spindle::sapi
