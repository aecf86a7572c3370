#pragma once

#include <string>
#include <vector>

#include "sapi/php.hpp"
#include "sapi/request.hpp"
#include "sapi/worker_script.hpp"

namespace spindle::sapi {

/// Adds the CGI/1.1 variables, FrankenPHP-compatible extras and one HTTP_* entry per request
/// header to `track_vars_array` ($_SERVER). Values pass through PHP's input filter (filter.default)
/// like php-fpm's. Slot thread, during request start-up.
/// In worker mode `worker` adds FRANKENPHP_WORKER=1 (its env is in the imported environment).
/// `added_names`, when given, receives the name of every variable added (worker mode reuses
/// the array and removes exactly these before the next request).
void register_server_variables(const request& req, const worker_script* worker,
                               zval* track_vars_array,
                               std::vector<std::string>* added_names = nullptr) noexcept;

}  // namespace spindle::sapi
