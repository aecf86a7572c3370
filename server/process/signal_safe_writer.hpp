#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace spindle::server {

/// Text put together without allocating, locking or stdio, for a signal handler (the crash
/// report): appended to a fixed buffer that goes to a file descriptor with write(2) whenever
/// it fills and at flush(). Every member is async-signal-safe. The buffer is a member, so the
/// writer lives on the handler's (alternate) stack, not in memory another thread could share.
class signal_safe_writer {
  public:
    /// Writes to `fd` (the log's, stderr).
    explicit signal_safe_writer(int fd) noexcept : fd_(fd) {}
    /// Flushes what is left.
    ~signal_safe_writer() { flush(); }

    signal_safe_writer(const signal_safe_writer&) = delete;
    signal_safe_writer& operator=(const signal_safe_writer&) = delete;

    /// `s` as it is.
    signal_safe_writer& text(std::string_view s) noexcept;
    /// `s` with control bytes (below 0x20, and 0x7f) as '?': a console log line stays one line
    /// whatever a request's URI holds.
    signal_safe_writer& printable(std::string_view s) noexcept;
    /// `s` as the inside of a JSON string: '"' and '\' escaped, control bytes as \u00XX.
    signal_safe_writer& json_escaped(std::string_view s) noexcept;
    /// `n` in decimal, zero-padded to `min_digits`.
    signal_safe_writer& decimal(std::uint64_t n, int min_digits = 1) noexcept;
    /// `n` in decimal with a '-' when negative.
    signal_safe_writer& signed_decimal(std::int64_t n) noexcept;
    /// `n` in lower-case hexadecimal after "0x".
    signal_safe_writer& hex(std::uintptr_t n) noexcept;
    /// A wall-clock time as the server's log lines show it: "2026-12-06 05:30:00.123" (console)
    /// or "2026-12-06T05:30:00.123+0100" (json). `offset_seconds` is the local time's distance
    /// from UTC, looked up before (localtime_r() takes a lock; here nothing may).
    signal_safe_writer& timestamp(std::int64_t unix_seconds, std::int64_t nanoseconds,
                                  std::int64_t offset_seconds, bool json) noexcept;

    /// Writes the buffer out, retrying short writes and EINTR; a failed write drops the rest
    /// (there is nowhere left to report it).
    void flush() noexcept;

  private:
    void put(char c) noexcept;

    int fd_;
    std::size_t used_ = 0;
    std::array<char, 2048> buffer_{};
};

/// A calendar date and time of day.
struct civil_time {
    std::int64_t year = 1970;
    int month = 1;  ///< 1..12
    int day = 1;    ///< 1..31
    int hour = 0;
    int minute = 0;
    int second = 0;
};

/// The date and time `unix_seconds` after 1970-01-01 00:00:00 in the proleptic Gregorian
/// calendar (H. Hinnant's days_from_civil inverse), without gmtime_r: no lock, no time zone
/// file. Async-signal-safe.
civil_time to_civil_time(std::int64_t unix_seconds) noexcept;

}  // namespace spindle::server
