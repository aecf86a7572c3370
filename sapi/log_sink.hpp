#pragma once

#include <string>

#include "sapi/request.hpp"

namespace spindle::sapi {

/// Where a worker script's output goes while it is not serving a request (its boot code, or
/// an echo between requests): to the log, one line per line of output, never to a client.
class log_sink final : public output_sink {
  public:
    explicit log_sink(std::string worker_name) : worker_name_(std::move(worker_name)) {}
    ~log_sink() override;

    void send_informational(int, const std::vector<header>&) noexcept override {}
    void send_head(int, std::string_view, std::vector<header>) noexcept override {}
    bool write(std::string_view data) noexcept override;
    bool flush() noexcept override { return true; }
    void finish(bool) noexcept override {}
    bool is_aborted() const noexcept override { return false; }

  private:
    std::string worker_name_;
    std::string partial_line_;
};

/// A request body with nothing in it.
class empty_body final : public body_source {
  public:
    std::size_t read(char*, std::size_t) noexcept override { return 0; }
};

}  // namespace spindle::sapi
