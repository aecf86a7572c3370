#include "sapi/slow_log.hpp"

#include <spdlog/spdlog.h>

#include "sapi/structured_log.hpp"

namespace spindle::sapi {

void log_slow_request(const backtrace_report& report, std::chrono::milliseconds threshold) {
    // Looked up once: spdlog::get() locks the registry.
    static const std::shared_ptr<spdlog::logger> logger = spdlog::get("sapi");
    const double running =
        std::chrono::duration_cast<std::chrono::milliseconds>(report.running).count() / 1000.0;
    const std::string message = fmt::format(
        "[slot {} req {}] slow request: {} {} has run {:.3f} s, past slowlog_timeout {} ms; its "
        "PHP backtrace (innermost frame first) shows where it is",
        report.slot, report.request_id, report.method, report.uri, running, threshold.count());
    log_with_fields(*logger, spdlog::level::warn, message, backtrace_fields(report));
}

void log_slow_request_without_backtrace(std::size_t slot, std::uint64_t request_id,
                                        std::string_view method, std::string_view uri,
                                        std::chrono::nanoseconds running,
                                        std::chrono::milliseconds threshold) {
    static const std::shared_ptr<spdlog::logger> logger = spdlog::get("sapi");
    backtrace_report report;
    report.slot = slot;
    report.request_id = request_id;
    report.method = method;
    report.uri = uri;
    report.running = running;
    const std::string message = fmt::format(
        "[slot {} req {}] slow request: {} {} ran {:.3f} s, past slowlog_timeout {} ms, and "
        "ended before PHP code ran on its thread again, so no backtrace could be taken: it was "
        "blocked in C code to the end (output to a slow client, a session write, a shutdown "
        "function's call)",
        slot, request_id, method, uri,
        std::chrono::duration_cast<std::chrono::milliseconds>(running).count() / 1000.0,
        threshold.count());
    log_with_fields(*logger, spdlog::level::warn, message, backtrace_fields(report));
}

}  // namespace spindle::sapi
