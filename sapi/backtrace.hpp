#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace spindle::sapi {

/// One frame of a PHP call stack, innermost first: the function and where execution is inside
/// it (for a user function the line it runs now; an internal function such as sleep() has no
/// file).
struct backtrace_frame {
    std::string function;  ///< "sleep", "App\\Kernel->handle", "{closure}", "{main}", "require"
    std::string file;      ///< empty for an internal function
    std::uint32_t line = 0;
};

/// Frames a backtrace keeps; deeper stacks end with one frame naming how many were left out.
constexpr std::size_t max_backtrace_frames = 100;

/// The backtrace of a running request, taken on its own slot thread, with what identifies the
/// request: what the slow log writes and GET /threads/N/backtrace answers.
struct backtrace_report {
    std::size_t slot = 0;
    std::uint64_t request_id = 0;
    std::string method;
    std::string uri;                      ///< the request-target as received
    std::string host;                     ///< SERVER_NAME
    std::chrono::nanoseconds running{0};  ///< since the slot thread took the request
    std::vector<backtrace_frame> frames;
};

/// The report's members as JSON object members without the braces (`"slot":1,...`), for a log
/// line's structured fields; wrap them in `{}` for a document. Bytes that are not UTF-8 (a raw
/// URI) are replaced. Any thread.
std::string backtrace_fields(const backtrace_report& report);

/// What to do with a backtrace: runs on the slot thread that took it, or with nullopt when the
/// request `request_id` was no longer running there (it ended first).
using backtrace_callback = std::function<void(std::optional<backtrace_report>)>;

/// A request for the backtrace of the request `request_id` on some slot (engine::
/// request_backtrace).
struct backtrace_order {
    std::uint64_t request_id = 0;
    /// steady_clock nanoseconds when the slot thread took the request (worker::slot's running
    /// copy), for backtrace_report::running.
    std::int64_t since = 0;
    backtrace_callback done;
};

/// Takes the calling thread's PHP backtrace now. Slot thread, inside a request (the VM
/// interrupt, or an internal function such as sleep()).
std::vector<backtrace_frame> capture_backtrace();

}  // namespace spindle::sapi
