#include "worker/worker_runtime.hpp"

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

void worker_runtime::run_thread(std::size_t index, pool& host) {
    auto log = spdlog::get("worker");
    sapi::engine::thread_scope php_thread(engine_, index);
    unsigned failures = 0;
    for (;;) {
        job current;
        bool stopping = false;
        std::uint64_t served = 0;
        sapi::worker_hooks hooks;
        hooks.next_request = [&]() -> sapi::request* {
            // The previous request is complete: let the connection go on.
            current.reset();
            if (policy_.max_requests > 0 && served >= policy_.max_requests) {
                return nullptr;
            }
            current = host.next_job(index);
            if (!current) {
                stopping = true;
                return nullptr;
            }
            ++served;
            return current.get();
        };

        sapi::worker_outcome outcome = engine_.run_worker(script_, hooks);
        current.reset();
        if (stopping) {
            return;
        }

        std::chrono::milliseconds backoff{0};
        if (!outcome.reached_handle_request) {
            ++failures;
            backoff = backoff_after(failures);
            std::string reason = outcome.failed ? outcome.error
                                                : "the script ended without calling "
                                                  "frankenphp_handle_request()";
            if (!host.has_started() && policy_.max_consecutive_failures > 0 &&
                failures >= policy_.max_consecutive_failures) {
                host.fail_startup("worker " + script_.name + " failed to start " +
                                  std::to_string(failures) + " times in a row: " + reason);
                return;
            }
            log->warn("slot {}: worker {} failed to start ({} in a row): {}; retrying in {} ms",
                      index, script_.name, failures, reason, backoff.count());
        } else {
            failures = 0;
            if (outcome.failed) {
                log->error("slot {}: worker {} crashed after {} requests: {}; restarting", index,
                           script_.name, outcome.requests, outcome.error);
            } else if (policy_.max_requests > 0 && served >= policy_.max_requests) {
                log->info("slot {}: worker {} served max_requests ({}); restarting", index,
                          script_.name, served);
            } else {
                log->warn("slot {}: worker {} script ended after {} requests; restarting", index,
                          script_.name, outcome.requests);
            }
        }
        if (!host.restart(index, backoff)) {
            return;
        }
    }
}

}  // namespace spindle::worker
