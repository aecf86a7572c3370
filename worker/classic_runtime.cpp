#include "worker/classic_runtime.hpp"

#include "sapi/engine.hpp"
#include "worker/pool.hpp"

namespace spindle::worker {

void classic_runtime::run_thread(std::size_t index, pool& host) {
    sapi::engine::thread_scope php_thread(engine_, index);
    while (job request = host.next_job(index)) {
        engine_.run_script(*request);
        host.record_memory(index, sapi::engine::last_request_memory());
    }
}

void classic_runtime::interrupt(std::size_t index) noexcept {
    engine_.interrupt(index);
}

}  // namespace spindle::worker
