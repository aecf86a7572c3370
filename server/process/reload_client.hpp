#pragma once

#include <string>

#include "config/listen_address.hpp"

namespace spindle::server {

/// The request field of POST /load that names the file its body was read from (errors then
/// say FILE:LINE, Caddyfile imports are read next to it); without it the body is named
/// "POST /load".
inline constexpr const char* config_file_header = "X-Spindle-Config-File";

/// What the running server's admin endpoint answered.
struct admin_answer {
    int status = 0;
    std::string body;
};

/// `spindle reload`: sends the configuration file `path` (its `text`, in the format `adapter`
/// names) to POST /load of the admin endpoint at `admin`, and waits for the answer up to
/// `timeout_seconds`. The file's path goes along, so that the server's errors name its lines
/// and imports are read next to it. Throws std::runtime_error when the endpoint cannot be
/// reached. Main thread of the command.
admin_answer post_load(const config::listen_address& admin, const std::string& path,
                       const std::string& text, const std::string& adapter, int timeout_seconds);

}  // namespace spindle::server
