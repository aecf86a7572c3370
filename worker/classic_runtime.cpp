#include "worker/classic_runtime.hpp"

#include <functional>
#include <utility>

#include <spdlog/spdlog.h>

#include "sapi/engine.hpp"
#include "worker/pool.hpp"

namespace spindle::worker {

void classic_runtime::run_thread(std::size_t index, pool& host) {
    // Each pass gives the thread a fresh PHP context; the previous one (and whatever an
    // extension leaked into it, or the memory manager kept cached) is freed when a pass ends
    // after max_requests or max_memory, as FrankenPHP reboots a regular thread
    // (threadregular.go).
    while (run_context(index, host)) {
        if (!host.restart(index, std::chrono::milliseconds(0), restart_reason::recycled)) {
            return;
        }
    }
}

bool classic_runtime::run_context(std::size_t index, pool& host) {
    sapi::engine::thread_scope php_thread(engine_, index);
    std::uint64_t served = 0;
    const std::function<void()> response_done = [&host, index] { host.response_done(index); };
    while (job request = host.next_job(index)) {
        engine_.run_script(*request, response_done);
        const sapi::memory_use memory = sapi::engine::last_request_memory();
        host.record_memory(index, memory);
        if (const auto cause = recycling_.due(++served, memory)) {
            spdlog::get("worker")->info(
                "slot {}: classic thread {}; its PHP thread state is recycled", index,
                recycling_.describe(*cause, memory));
            return true;
        }
    }
    return false;
}

void classic_runtime::interrupt(std::size_t index) noexcept {
    engine_.interrupt(index);
}

bool classic_runtime::request_backtrace(std::size_t index, sapi::backtrace_order order) noexcept {
    return engine_.request_backtrace(index, std::move(order));
}

}  // namespace spindle::worker
