#include "worker/recycle_policy.hpp"

namespace spindle::worker {

std::string_view to_string(recycle_cause cause) noexcept {
    switch (cause) {
        case recycle_cause::max_requests: return "max_requests";
        case recycle_cause::max_memory: return "max_memory";
    }
    return "unknown";
}

std::string recycle_policy::describe(recycle_cause cause, const sapi::memory_use& memory) const {
    constexpr std::size_t mib = 1024 * 1024;
    if (cause == recycle_cause::max_requests) {
        return "served max_requests (" + std::to_string(max_requests) + ")";
    }
    // Rounded up, so a heap just over a whole-MiB cap never reads as equal to it.
    return "holds " + std::to_string((memory.held + mib - 1) / mib) +
           " MiB of PHP memory, over max_memory (" + std::to_string(max_memory / mib) + " MiB)";
}

}  // namespace spindle::worker
