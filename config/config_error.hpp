#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

namespace spindle::config {

/// A configuration mistake the user has to fix: an unknown flag, a bad value, a bad Caddyfile
/// token. Thrown during start-up only; main logs what() and exits non-zero.
class config_error : public std::runtime_error {
  public:
    /// An error not tied to a file, such as a command-line flag; what() is the message alone.
    explicit config_error(const std::string& message);

    /// An error in a configuration file; what() is "file:line: message", or "file: message"
    /// when line is 0 (the file as a whole, e.g. it cannot be read). Lines count from 1.
    config_error(const std::string& message, std::string file, std::size_t line);

    /// The message without the file:line prefix, so a caller can wrap it in more context.
    const std::string& message() const noexcept { return message_; }

    /// The file the error is in; nullopt for errors that do not come from a file.
    const std::optional<std::string>& file() const noexcept { return file_; }

    /// The 1-based line in file(); 0 when there is no file or the whole file is meant.
    std::size_t line() const noexcept { return line_; }

  private:
    std::string message_;
    std::optional<std::string> file_;
    std::size_t line_ = 0;
};

}  // namespace spindle::config
