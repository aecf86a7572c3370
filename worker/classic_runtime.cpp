#include "worker/classic_runtime.hpp"

#include "sapi/engine.hpp"

namespace spindle::worker {

void classic_runtime::run_thread(std::size_t index, const std::function<job()>& next_job) {
    sapi::engine::thread_scope php_thread(engine_, index);
    while (job request = next_job()) {
        engine_.run_script(*request);
    }
}

}  // namespace spindle::worker
