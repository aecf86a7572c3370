#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sapi/backtrace.hpp"

namespace spindle::sapi {

/// Writes the slow log's line about `report`, a request that ran past `threshold`
/// (slowlog_timeout): one warning on the "sapi" logger naming the request, with the report
/// (backtrace_fields()) as the line's structured fields. Slot thread that took the backtrace.
void log_slow_request(const backtrace_report& report, std::chrono::milliseconds threshold);

/// The slow log's line about a request that ran past `threshold` but ended, or lost its
/// thread, before PHP code ran on that thread again (it was blocked in C code to the end:
/// output to a slow client, a session write at shutdown): the same line, with `running` its
/// time when it ended and no backtrace. Slot thread.
void log_slow_request_without_backtrace(std::size_t slot, std::uint64_t request_id,
                                        std::string_view method, std::string_view uri,
                                        std::chrono::nanoseconds running,
                                        std::chrono::milliseconds threshold);

}  // namespace spindle::sapi
