#pragma once

#include <sys/types.h>

#include <string>

namespace spindle::server {

/// A listening Unix domain socket and the file that names it.
struct unix_listening_socket {
    std::string path;
    int fd = -1;       ///< close-on-exec, listening
    dev_t device = 0;  ///< the socket file, so that only this one is ever removed
    ino_t inode = 0;
};

/// Creates the listening Unix domain socket at `path`. A socket file left by a server that is
/// gone (nothing accepts on it) is replaced; one that a live server accepts on, or any other
/// kind of file, is an error. `mode` >= 0 sets the socket file's permission bits, which decide
/// who may connect (the proxy's user). Throws std::system_error naming the path. Control
/// thread, at start-up.
unix_listening_socket open_unix_listener(const std::string& path, int mode);

/// Removes the socket file open_unix_listener() made, if its path still names that file and not
/// one a newer server made since, so that a proxy gets "no such file" rather than "connection
/// refused". Any thread.
void remove_unix_socket(const unix_listening_socket& socket) noexcept;

}  // namespace spindle::server
