#include "server/http/body_store.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "server/http/spill_file.hpp"

namespace spindle::server {

body_store::~body_store() {
    if (spill_fd_ >= 0) {
        ::close(spill_fd_);
    }
}

std::error_code body_store::append(const char* data, std::size_t size) {
    std::size_t in_memory = std::min(size, memory_limit_ - std::min(memory_limit_, memory_.size()));
    if (spill_fd_ < 0) {
        memory_.append(data, in_memory);
        data += in_memory;
        size -= in_memory;
        size_ += in_memory;
        if (size == 0) {
            return {};
        }
        spill_fd_ = open_spill_file();
        if (spill_fd_ < 0) {
            return {errno, std::generic_category()};
        }
    }
    while (size > 0) {
        ssize_t n = ::write(spill_fd_, data, size);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return {errno, std::generic_category()};
        }
        data += n;
        size -= static_cast<std::size_t>(n);
        size_ += static_cast<std::uint64_t>(n);
    }
    return {};
}

std::size_t body_store::read(char* buffer, std::size_t size) noexcept {
    std::size_t copied = 0;
    if (read_offset_ < memory_.size()) {
        copied = std::min(size, memory_.size() - static_cast<std::size_t>(read_offset_));
        std::memcpy(buffer, memory_.data() + read_offset_, copied);
        read_offset_ += copied;
        if (copied == size) {
            return copied;
        }
    }
    if (spill_fd_ < 0) {
        return copied;
    }
    ssize_t n;
    do {
        n = ::pread(spill_fd_, buffer + copied, size - copied,
                    static_cast<off_t>(read_offset_ - memory_.size()));
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
        read_offset_ += static_cast<std::uint64_t>(n);
        copied += static_cast<std::size_t>(n);
    }
    return copied;
}

}  // namespace spindle::server
