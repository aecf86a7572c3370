#pragma once

#include "sapi/php.hpp"

namespace spindle::sapi {

/// The "spindle" PHP module: the functions Spindle exports to scripts (frankenphp_finish_request,
/// fastcgi_finish_request, getallheaders, apache_request_headers, apache_response_headers,
/// headers_send, frankenphp_log and its FRANKENPHP_LOG_LEVEL_* constants). Registered once at
/// engine start-up.
extern zend_module_entry spindle_module_entry;

}  // namespace spindle::sapi
