#pragma once

#include "sapi/php.hpp"
#include "sapi/slot_context.hpp"

namespace spindle::sapi {

/// frankenphp_handle_request() for the slot's worker script: ends the boot pseudo-request on
/// the first call, waits for the next request, sets PHP up for it (superglobals, headers,
/// output layer, timeout), calls the handler, completes the response and resets per-request
/// state. Returns false when there is no next request (the script should end).
///
/// Slot thread, inside a PHP function frame: a fatal error in the handler bails out (longjmp)
/// through here, so nothing in this call keeps an object with a destructor alive across it.
bool handle_worker_request(slot_context& ctx, zend_fcall_info* handler,
                           zend_fcall_info_cache* handler_cache) noexcept;

}  // namespace spindle::sapi
