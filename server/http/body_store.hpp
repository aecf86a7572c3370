#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <system_error>

#include "sapi/request.hpp"

namespace spindle::server {

/// A request body received whole before PHP runs: the first `memory_limit` bytes in memory,
/// the rest spilled to an anonymous temporary file (like nginx's client_body_buffer_size), so a
/// large upload costs disk, not RAM, and a slow uploader never holds a PHP thread.
///
/// Written by the connection's I/O thread, then read by one PHP slot thread; the hand-off
/// through the pool's mutex orders the two.
class body_store final : public sapi::body_source {
  public:
    explicit body_store(std::size_t memory_limit) : memory_limit_(memory_limit) {}
    ~body_store() override;
    body_store(const body_store&) = delete;
    body_store& operator=(const body_store&) = delete;

    /// Appends received bytes (I/O thread). Fails only when the spill file cannot be written.
    std::error_code append(const char* data, std::size_t size);

    /// Total bytes received.
    std::uint64_t size() const noexcept { return size_; }

    /// Sequential read from the start (PHP slot thread).
    std::size_t read(char* buffer, std::size_t size) noexcept override;

  private:
    std::size_t memory_limit_;
    std::string memory_;
    int spill_fd_ = -1;
    std::uint64_t size_ = 0;
    std::uint64_t read_offset_ = 0;
};

}  // namespace spindle::server
