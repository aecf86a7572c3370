#include "server/http/access_log.hpp"

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

namespace spindle::server {

std::string access_logger_name(std::string_view site) {
    return "access:" + std::string(site);
}

void log_access(const access_entry& entry) {
    static const std::shared_ptr<spdlog::logger> default_logger = spdlog::get("access");
    // Registered at start-up, before any request (server/main.cpp); a lookup in spdlog's
    // registry, which only sites that asked for an access log pay.
    const std::shared_ptr<spdlog::logger> own = spdlog::get(access_logger_name(entry.site));
    const std::shared_ptr<spdlog::logger>& access = own ? own : default_logger;
    const std::string slot =
        entry.slot == static_cast<std::size_t>(-1) ? std::string("-") : std::to_string(entry.slot);
    access->info("{} \"{} {} HTTP/{}.{}\" {} {} {:.3f}ms {} req={} slot={}{}{}", entry.remote_addr,
                 entry.method, entry.target, entry.http_version / 10, entry.http_version % 10,
                 entry.status, entry.bytes, entry.duration_ms, entry.site, entry.request_id, slot,
                 entry.outcome.empty() ? "" : " ", entry.outcome);
}

}  // namespace spindle::server
