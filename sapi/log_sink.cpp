#include "sapi/log_sink.hpp"

#include <spdlog/spdlog.h>

namespace spindle::sapi {

log_sink::~log_sink() {
    if (!partial_line_.empty()) {
        spdlog::get("php")->info("[worker {}] output: {}", worker_name_, partial_line_);
    }
}

bool log_sink::write(std::string_view data) noexcept {
    partial_line_.append(data);
    std::size_t start = 0;
    for (std::size_t nl = partial_line_.find('\n'); nl != std::string::npos;
         nl = partial_line_.find('\n', start)) {
        spdlog::get("php")->info("[worker {}] output: {}", worker_name_,
                                 std::string_view(partial_line_).substr(start, nl - start));
        start = nl + 1;
    }
    partial_line_.erase(0, start);
    return true;
}

}  // namespace spindle::sapi
