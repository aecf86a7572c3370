#include "server/http/spill_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

namespace spindle::server {

int open_spill_file() noexcept {
    const char* dir = std::getenv("TMPDIR");
    if (dir == nullptr || *dir == '\0') {
        dir = "/tmp";
    }
    int fd = ::open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) {
        return fd;
    }
    // Filesystems without O_TMPFILE: create, then unlink at once.
    char path[4096];
    const int length = std::snprintf(path, sizeof path, "%s/spindle-spill-XXXXXX", dir);
    if (length <= 0 || static_cast<std::size_t>(length) >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = ::mkostemp(path, O_CLOEXEC);
    if (fd >= 0) {
        ::unlink(path);
    }
    return fd;
}

std::shared_ptr<spill_file> spill_file::create() noexcept {
    const int fd = open_spill_file();
    if (fd < 0) {
        return nullptr;
    }
    auto* file = new (std::nothrow) spill_file(fd);
    if (file == nullptr) {
        ::close(fd);
        errno = ENOMEM;
        return nullptr;
    }
    try {
        return std::shared_ptr<spill_file>(file);
    } catch (const std::bad_alloc&) {
        // shared_ptr's constructor deletes the file (and so closes it) when its block fails.
        errno = ENOMEM;
        return nullptr;
    }
}

spill_file::~spill_file() {
    ::close(fd_);
}

std::error_code spill_file::write_at(std::uint64_t offset, std::string_view data) noexcept {
    while (!data.empty()) {
        const ssize_t n = ::pwrite(fd_, data.data(), data.size(), static_cast<off_t>(offset));
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return {errno, std::generic_category()};
        }
        data.remove_prefix(static_cast<std::size_t>(n));
        offset += static_cast<std::uint64_t>(n);
    }
    return {};
}

long spill_file::read_at(std::uint64_t offset, char* buffer, std::size_t size) noexcept {
    ssize_t n = 0;
    do {
        n = ::pread(fd_, buffer, size, static_cast<off_t>(offset));
    } while (n < 0 && errno == EINTR);
    return n;
}

}  // namespace spindle::server
