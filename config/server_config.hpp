#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/listen_address.hpp"

namespace spindle::config {

/// Limits and timeouts of the HTTP front end. All of them apply per connection.
struct http_limits {
    std::size_t max_header_size = 64 * 1024;       ///< request line + headers; over it -> 431
    std::size_t max_body_size = 64 * 1024 * 1024;  ///< request body; over it -> 413
    std::size_t body_memory_size = 64 * 1024;      ///< body bytes kept in memory before spilling
    std::chrono::milliseconds read_header_timeout{10'000};  ///< first byte to end of headers
    std::chrono::milliseconds read_body_timeout{60'000};    ///< whole request body
    std::chrono::milliseconds write_timeout{60'000};        ///< each write of the response
    std::chrono::milliseconds idle_timeout{60'000};  ///< keep-alive wait for the next request
    std::size_t max_connections =
        10'000;  ///< accepted connections at once; more wait in the backlog
};

/// A worker group: a script that boots once per thread and then serves request after request
/// through frankenphp_handle_request(). Requests whose resolved script is `file` go to it.
struct worker_config {
    std::string file;     ///< the worker script; made absolute by validation
    std::size_t num = 0;  ///< threads running it; 0 = 2 x CPU cores
    std::string name;     ///< for logs and metrics; defaults to the file
    std::vector<std::pair<std::string, std::string>> env;  ///< extra $_SERVER/$_ENV entries
    std::uint64_t max_requests = 0;  ///< restart a thread's script after this many; 0 = never
    /// Boot failures in a row before start-up gives up (at run time the worker keeps retrying
    /// with backoff); -1 = never give up.
    int max_consecutive_failures = 6;
};

/// Everything a running server needs; built from CLI flags (config/command_line.hpp) and, later,
/// from the Caddyfile/JSON front ends. Read-only once the server starts.
struct server_config {
    std::vector<listen_address> listen{{"", 8080}};
    std::string root = ".";  ///< document root, made absolute by validation
    std::string index = "index.php";
    bool file_server = true;                          ///< serve non-PHP files under root
    std::size_t num_threads = 0;                      ///< PHP slot threads; 0 = 2 x CPU cores
    std::size_t io_threads = 0;                       ///< I/O threads; 0 = CPU cores
    std::chrono::milliseconds max_wait_time{30'000};  ///< queued request deadline -> 503
    std::size_t max_queue = 4096;                     ///< queued requests; more -> 503 at once
    std::optional<std::string> php_ini_file;          ///< --php-ini: replaces php.ini lookup
    std::vector<std::pair<std::string, std::string>> php_ini;  ///< extra ini settings
    std::vector<worker_config> workers;                        ///< worker groups
    /// Environment entries every script sees ($_SERVER, $_ENV, getenv()), over the process's.
    std::vector<std::pair<std::string, std::string>> env;
    /// How long a worker restart (SIGUSR1) waits for running requests before interrupting them.
    std::chrono::milliseconds worker_restart_grace{30'000};
    http_limits limits;
    std::string log_level = "info";
};

}  // namespace spindle::config
