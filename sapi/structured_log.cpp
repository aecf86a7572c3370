#include "sapi/structured_log.hpp"

#include <spdlog/spdlog.h>

namespace spindle::sapi {
namespace {

// The fields of the line the calling thread is logging now; empty otherwise. Set only around
// one synchronous log call, so a formatter on this thread reads the right line's fields.
thread_local std::string_view current_fields;

}  // namespace

spdlog::level::level_enum slog_level(long long level) noexcept {
    if (level < 0) {
        return spdlog::level::debug;
    }
    if (level < 4) {
        return spdlog::level::info;
    }
    if (level < 8) {
        return spdlog::level::warn;
    }
    return spdlog::level::err;
}

void log_with_fields(spdlog::level::level_enum level, std::string_view message,
                     std::string_view fields) {
    // Looked up once: spdlog::get() locks the registry, and scripts may log in a loop.
    static const std::shared_ptr<spdlog::logger> logger = spdlog::get("php");
    log_with_fields(*logger, level, message, fields);
}

void log_with_fields(spdlog::logger& logger, spdlog::level::level_enum level,
                     std::string_view message, std::string_view fields) {
    if (!logger.should_log(level)) {
        return;
    }
    current_fields = fields;
    logger.log(level, "{}", message);
    current_fields = {};
}

void log_fields_flag::format(const spdlog::details::log_msg&, const std::tm&,
                             spdlog::memory_buf_t& dest) {
    if (current_fields.empty()) {
        return;
    }
    const std::string_view open = json_ ? "," : " {";
    dest.append(open.data(), open.data() + open.size());
    dest.append(current_fields.data(), current_fields.data() + current_fields.size());
    if (!json_) {
        dest.push_back('}');
    }
}

}  // namespace spindle::sapi
