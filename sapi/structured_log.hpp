#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>

namespace spindle::sapi {

/// frankenphp_log()'s levels are Go's log/slog levels: DEBUG -4, INFO 0, WARN 4, ERROR 8, and
/// any integer between. Maps one onto spdlog's.
spdlog::level::level_enum slog_level(long long level) noexcept;

/// Logs `message` to the "php" logger at `level` with `fields`: comma-separated JSON members
/// (`"key":value,...`, possibly empty) that the log formats render as structured data. Calling
/// thread (spdlog formats synchronously, on the thread that logs).
void log_with_fields(spdlog::level::level_enum level, std::string_view message,
                     std::string_view fields);

/// log_with_fields() on another logger. Calling thread.
void log_with_fields(spdlog::logger& logger, spdlog::level::level_enum level,
                     std::string_view message, std::string_view fields);

/// The `%&` pattern flag: the fields of the line being logged, if it has any. For JSON lines
/// they become members of the line's object (`,"key":value`); for console lines one JSON object
/// after the message (` {"key":value}`).
class log_fields_flag final : public spdlog::custom_flag_formatter {
  public:
    explicit log_fields_flag(bool json) : json_(json) {}
    void format(const spdlog::details::log_msg& msg, const std::tm& time,
                spdlog::memory_buf_t& dest) override;
    std::unique_ptr<custom_flag_formatter> clone() const override {
        return std::make_unique<log_fields_flag>(json_);
    }

  private:
    bool json_;
};

}  // namespace spindle::sapi
