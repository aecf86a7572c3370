#include "server/http1/unix_socket.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace spindle::server {
namespace {

[[noreturn]] void fail(int error, const std::string& path, const std::string& what) {
    throw std::system_error(error, std::generic_category(),
                            "cannot listen on unix/" + path + ": " + what);
}

sockaddr_un address_of(const std::string& path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    // The configuration refused longer paths (listen_address.cpp).
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    return address;
}

/// True when a server accepts connections on the socket at `path`.
bool someone_listens(const sockaddr_un& address) {
    const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe < 0) {
        return false;
    }
    const bool connected =
        ::connect(probe, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
    ::close(probe);
    return connected;
}

}  // namespace

unix_listening_socket open_unix_listener(const std::string& path, int mode) {
    const sockaddr_un address = address_of(path);
    struct stat info {};
    if (::lstat(path.c_str(), &info) == 0) {
        if (!S_ISSOCK(info.st_mode)) {
            fail(EEXIST, path, "the path exists and is not a socket");
        }
        if (someone_listens(address)) {
            fail(EADDRINUSE, path, "another server accepts connections on it");
        }
        // Left behind by a server that did not end cleanly.
        ::unlink(path.c_str());
    }
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fail(errno, path, "socket");
    }
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        const int error = errno;
        ::close(fd);
        fail(error, path, "bind");
    }
    // Set before listen(), so no client connects while the file still has the umask's mode.
    if (mode >= 0 && ::chmod(path.c_str(), static_cast<mode_t>(mode)) != 0) {
        const int error = errno;
        ::close(fd);
        ::unlink(path.c_str());
        fail(error, path, "chmod");
    }
    if (::listen(fd, SOMAXCONN) != 0 || ::lstat(path.c_str(), &info) != 0) {
        const int error = errno;
        ::close(fd);
        ::unlink(path.c_str());
        fail(error, path, "listen");
    }
    return {path, fd, info.st_dev, info.st_ino};
}

void remove_unix_socket(const unix_listening_socket& socket) noexcept {
    struct stat info {};
    if (::lstat(socket.path.c_str(), &info) == 0 && info.st_dev == socket.device &&
        info.st_ino == socket.inode) {
        ::unlink(socket.path.c_str());
    }
}

}  // namespace spindle::server
