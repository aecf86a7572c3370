#include "config/config_error.hpp"

#include <utility>

namespace spindle::config {

namespace {

std::string located(const std::string& message, const std::string& file, std::size_t line) {
    if (line == 0) {
        return file + ": " + message;
    }
    return file + ":" + std::to_string(line) + ": " + message;
}

}  // namespace

config_error::config_error(const std::string& message)
    : std::runtime_error(message), message_(message) {}

config_error::config_error(const std::string& message, std::string file, std::size_t line)
    : std::runtime_error(located(message, file, line)),
      message_(message),
      file_(std::move(file)),
      line_(line) {}

}  // namespace spindle::config
