#include "worker/worker_runtime.hpp"

#include <optional>
#include <utility>

#include <spdlog/spdlog.h>

#include "sapi/engine.hpp"
#include "worker/pool.hpp"

namespace spindle::worker {

std::chrono::milliseconds backoff_after(unsigned consecutive_failures) noexcept {
    auto delay = first_backoff;
    for (unsigned i = 1; i < consecutive_failures && delay < max_backoff; ++i) {
        delay *= 2;
    }
    return std::min(delay, max_backoff);
}

void worker_runtime::interrupt(std::size_t index) noexcept {
    engine_.interrupt(index);
}

bool worker_runtime::request_backtrace(std::size_t index, sapi::backtrace_order order) noexcept {
    return engine_.request_backtrace(index, std::move(order));
}

void worker_runtime::run_thread(std::size_t index, pool& host) {
    unsigned failures = 0;
    // Each pass gives the thread a fresh PHP context; the previous one (and whatever memory
    // the script leaked into it) is freed when a pass ends after max_requests or max_memory.
    while (run_context(index, host, failures) == context_end::recycle) {
        if (!host.restart(index, std::chrono::milliseconds(0), restart_reason::recycled)) {
            return;
        }
    }
}

worker_runtime::context_end worker_runtime::run_context(std::size_t index, pool& host,
                                                        unsigned& failures) {
    auto log = spdlog::get("worker");
    sapi::engine::thread_scope php_thread(engine_, index);
    for (;;) {
        job current;
        bool stopping = false;
        std::uint64_t served = 0;
        std::optional<recycle_cause> recycle;
        sapi::worker_hooks hooks;
        hooks.response_done = [&host, index] { host.response_done(index); };
        hooks.next_request = [&]() -> sapi::request* {
            // The previous request is complete: let the connection go on.
            current.reset();
            const sapi::memory_use memory = sapi::engine::last_request_memory();
            host.record_memory(index, memory);
            // After a request (not at boot): the boot's memory is what the script needs.
            recycle = served > 0 ? policy_.recycling.due(served, memory) : std::nullopt;
            if (recycle) {
                log->info("slot {}: worker {} {}; its PHP thread state is recycled", index,
                          script_.name, policy_.recycling.describe(*recycle, memory));
                return nullptr;
            }
            current = host.next_job(index);
            if (!current) {
                // The pool stops, or this generation was replaced: the script ends for good.
                stopping = true;
                return nullptr;
            }
            ++served;
            return current.get();
        };

        sapi::worker_outcome outcome = engine_.run_worker(script_, hooks);
        current.reset();
        if (stopping) {
            return context_end::stop;
        }
        if (recycle && outcome.reached_handle_request && !outcome.failed) {
            return context_end::recycle;
        }

        std::chrono::milliseconds backoff{0};
        restart_reason why = restart_reason::crash;
        if (!outcome.reached_handle_request) {
            why = restart_reason::boot_failure;
            ++failures;
            backoff = backoff_after(failures);
            std::string reason = outcome.failed ? outcome.error
                                                : "the script ended without calling "
                                                  "frankenphp_handle_request()";
            if (host.is_booting(index) && policy_.max_consecutive_failures >= 0 &&
                failures >= static_cast<unsigned>(policy_.max_consecutive_failures)) {
                host.fail_boot(index, "worker " + script_.name + " failed to start " +
                                          std::to_string(failures) + " times in a row: " + reason);
                return context_end::stop;
            }
            if (policy_.max_consecutive_failures < 0) {
                host.settle_startup(index);
            }
            log->warn("slot {}: worker {} failed to start ({} in a row): {}; retrying in {} ms",
                      index, script_.name, failures, reason, backoff.count());
        } else {
            failures = 0;
            if (outcome.failed) {
                log->warn(
                    "slot {}: worker {} crashed after {} requests (exit status {}): {}; "
                    "restarting it now",
                    index, script_.name, served, outcome.exit_status, outcome.error);
            } else if (outcome.exit_status == 0) {
                why = restart_reason::ended;
                log->info(
                    "slot {}: worker {} script ended after {} requests (exit status 0); "
                    "restarting it now",
                    index, script_.name, served);
            } else {
                log->warn(
                    "slot {}: worker {} script ended after {} requests (exit status {}); "
                    "restarting it now",
                    index, script_.name, served, outcome.exit_status);
            }
        }
        if (!host.restart(index, backoff, why)) {
            return context_end::stop;
        }
    }
}

}  // namespace spindle::worker
