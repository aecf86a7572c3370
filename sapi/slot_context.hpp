#pragma once

#include <cstddef>
#include <string>

#include "sapi/request.hpp"

namespace spindle::sapi {

/// What a SAPI callback knows about the request its slot thread serves. One per slot, in an
/// array sized at engine start; SG(server_context) points at the slot's entry for the duration
/// of a request, so every callback reaches its request in one load, without a lookup or lock.
/// Touched only by the slot's own thread.
struct slot_context {
    std::size_t index = 0;      ///< the slot's index
    request* req = nullptr;     ///< the request being served; null between requests
    bool finished = false;      ///< the response was completed (finish_request or end)
    std::string cookies;        ///< Cookie header values joined with "; " (read_cookies)
    std::string status_reason;  ///< scratch for the reason phrase of a custom status line
};

/// The calling slot thread's context; null on threads that are not slot threads.
slot_context* current_slot() noexcept;

}  // namespace spindle::sapi
