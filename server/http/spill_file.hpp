#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <system_error>

namespace spindle::server {

/// Opens an unnamed temporary file in $TMPDIR (else /tmp) that vanishes with its descriptor, so
/// a crash leaves nothing behind; -1 with errno set on failure. The request bodies and the PHP
/// responses that spill share this directory. Any thread.
int open_spill_file() noexcept;

/// A PHP response's overflow on disk: the PHP thread writes ranges with write_at(), the
/// connection's I/O thread reads back ranges it was told are complete (the post that told it
/// orders the two). Shared by the exchange and the queued pieces that refer to it; the file is
/// gone when the last of them lets go, so a response that ends or whose client leaves leaves
/// no file behind.
class spill_file {
  public:
    /// A new empty file; null when none can be created (errno says why).
    static std::shared_ptr<spill_file> create() noexcept;

    explicit spill_file(int fd) noexcept : fd_(fd) {}
    ~spill_file();
    spill_file(const spill_file&) = delete;
    spill_file& operator=(const spill_file&) = delete;

    /// Writes all of `data` at `offset` (PHP thread). Fails when the disk is full or the file
    /// cannot grow.
    std::error_code write_at(std::uint64_t offset, std::string_view data) noexcept;

    /// Reads up to `size` bytes at `offset` into `buffer`; the count, or -1 with errno set (I/O
    /// thread).
    long read_at(std::uint64_t offset, char* buffer, std::size_t size) noexcept;

  private:
    const int fd_;
};

}  // namespace spindle::server
