#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sapi/memory_use.hpp"

namespace spindle::worker {

/// Why a PHP thread's context is freed and made afresh.
enum class recycle_cause {
    max_requests,  ///< it served max_requests requests
    max_memory,    ///< a request left its Zend heap above max_memory
};

/// Lower-case name, for logs.
std::string_view to_string(recycle_cause cause) noexcept;

/// When a slot thread recycles its PHP context: after `max_requests` requests (FrankenPHP's
/// max_requests), or after the request that leaves the thread's Zend heap above `max_memory`
/// bytes (RoadRunner's max_worker_memory). The heap is what zend_memory_usage(true) reports as
/// a request ends: for a worker the resident script's memory, leaks included; for a classic
/// thread the chunks the memory manager keeps cached after a large request. Checking after the
/// request, not during it, never cuts a response short; memory_limit guards a single request.
/// Read-only; the slot thread that owns a copy asks it.
struct recycle_policy {
    std::uint64_t max_requests = 0;  ///< 0: never
    std::size_t max_memory = 0;      ///< bytes; 0: never

    /// Slot thread, after a request: why the thread must recycle now that it has served
    /// `served` requests in this context and holds `memory`; nullopt: not yet.
    std::optional<recycle_cause> due(std::uint64_t served,
                                     const sapi::memory_use& memory) const noexcept {
        if (max_requests > 0 && served >= max_requests) {
            return recycle_cause::max_requests;
        }
        if (max_memory > 0 && memory.held > max_memory) {
            return recycle_cause::max_memory;
        }
        return std::nullopt;
    }

    /// The end of a log line saying why the thread recycles: "served max_requests (5)" or
    /// "holds 70 MiB of PHP memory, over max_memory (64 MiB)".
    std::string describe(recycle_cause cause, const sapi::memory_use& memory) const;
};

}  // namespace spindle::worker
