#include "server/access_log.hpp"

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

namespace spindle::server {

void log_access(const access_entry& entry) {
    static const std::shared_ptr<spdlog::logger> access = spdlog::get("access");
    const std::string slot =
        entry.slot == static_cast<std::size_t>(-1) ? std::string("-") : std::to_string(entry.slot);
    access->info("{} \"{} {} HTTP/1.{}\" {} {} {:.3f}ms {} req={} slot={}{}{}", entry.remote_addr,
                 entry.method, entry.target, entry.http_version % 10, entry.status, entry.bytes,
                 entry.duration_ms, entry.site, entry.request_id, slot,
                 entry.outcome.empty() ? "" : " ", entry.outcome);
}

}  // namespace spindle::server
