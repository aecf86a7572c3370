#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "sapi/request.hpp"

namespace spindle::sapi {

/// A worker script as the engine runs it: the file, where it lives and which environment.
/// Owned by worker/, read-only while scripts run.
struct worker_script {
    std::string name;           ///< for logs
    std::string file;           ///< absolute path of the script
    std::string document_root;  ///< absolute, no trailing slash
    std::string script_name;    ///< URL path of the script under the root ("/index.php")
    std::size_t env_index = 0;  ///< its environment, from engine::add_worker_environment()
};

/// What a worker script's slot thread does between requests; supplied by worker/ so that
/// sapi/ never names a pool type.
struct worker_hooks {
    /// Blocks until the next request for this thread; null when the script must end
    /// (shutdown, restart, max_requests). Runs on the slot thread, inside
    /// frankenphp_handle_request(). The request stays valid until the next call.
    std::function<request*()> next_request;
    /// Runs on the slot thread just before each request's response is completed (see
    /// engine::run_script).
    std::function<void()> response_done;
};

/// How one run of a worker script ended.
struct worker_outcome {
    bool reached_handle_request = false;  ///< false: it died while booting
    bool failed = false;                  ///< it ended on a fatal error or uncaught exception
    std::string error;                    ///< PHP's last error message, when failed
    int exit_status = 0;                  ///< exit() status, 255 after a fatal error
};

}  // namespace spindle::sapi
