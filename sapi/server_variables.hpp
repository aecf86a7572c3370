#pragma once

#include "sapi/php.hpp"
#include "sapi/request.hpp"

namespace spindle::sapi {

/// Adds the CGI/1.1 variables, FrankenPHP-compatible extras and one HTTP_* entry per request
/// header to `track_vars_array` ($_SERVER). Values pass through PHP's input filter (filter.default)
/// like php-fpm's. Slot thread, during request start-up.
void register_server_variables(const request& req, zval* track_vars_array) noexcept;

}  // namespace spindle::sapi
