#include "server/admin/reload_result.hpp"

#include <nlohmann/json.hpp>

namespace spindle::server {

std::string reload_result::to_json() const {
    nlohmann::json body = {{"applied", applied},
                           {"error", error.empty() ? nlohmann::json() : nlohmann::json(error)},
                           {"restart_required", restart_required},
                           {"workers_started", workers_started},
                           {"listeners_added", listeners_added},
                           {"listeners_removed", listeners_removed}};
    return body.dump() + "\n";
}

}  // namespace spindle::server
