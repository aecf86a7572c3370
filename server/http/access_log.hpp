#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace spindle::server {

/// One request as the access log shows it.
struct access_entry {
    std::string_view remote_addr;
    std::string_view method;
    std::string_view target;  ///< raw path, with "?query" when there is one
    int http_version = 11;    ///< 10, 11 or 20
    int status = 0;
    std::uint64_t bytes = 0;  ///< bytes written: head and body
    double duration_ms = 0;   ///< from the request line's arrival
    std::string_view site;
    std::uint64_t request_id = 0;
    /// The PHP slot that ran the request; npos for what the I/O thread answered itself.
    std::size_t slot = static_cast<std::size_t>(-1);
    std::string_view outcome;  ///< "" or why the response ended early ("aborted")
};

/// The name of the logger a site's access log goes to when its `log` names an output of its
/// own ("access:" + site name); otherwise the lines go to the "access" logger.
std::string access_logger_name(std::string_view site);

/// Writes one line to the site's access logger, or the "access" logger:
///   127.0.0.1 "GET /?q=1 HTTP/1.1" 200 153 0.412ms site req=42 slot=3
/// Called by the I/O thread for what it wrote, and by a PHP slot thread for a response it
/// wrote itself (php_exchange); the logger's sink is thread-safe.
void log_access(const access_entry& entry);

}  // namespace spindle::server
