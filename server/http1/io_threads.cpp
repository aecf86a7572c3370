#include "server/http1/io_threads.hpp"

#include <pthread.h>

#include <algorithm>
#include <cstdio>
#include <new>
#include <string>

#include "worker/alternate_signal_stack.hpp"

namespace spindle::server {

io_threads::io_threads(std::size_t count) {
    count = std::max<std::size_t>(count, 1);
    contexts_.reserve(count);
    guards_.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        // Concurrency hint 1: only this context's thread runs it, so Asio queues the handlers
        // that thread posts to itself without taking the scheduler's lock.
        contexts_.push_back(std::make_unique<boost::asio::io_context>(1));
        guards_.push_back(boost::asio::make_work_guard(*contexts_.back()));
    }
}

io_threads::~io_threads() {
    stop();
    join();
}

boost::asio::io_context::executor_type io_threads::next_executor() noexcept {
    const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed) % contexts_.size();
    return contexts_[i]->get_executor();
}

void io_threads::start() {
    threads_.reserve(contexts_.size());
    for (std::size_t i = 0; i < contexts_.size(); ++i) {
        threads_.emplace_back([this, i] {
            // The crash report runs on it, also when this thread overflowed its own stack.
            const worker::alternate_signal_stack signal_stack;
            // Named for top -H, perf and gdb (15 characters at most).
            pthread_setname_np(pthread_self(), ("spindle-io-" + std::to_string(i)).c_str());
            // A handler that runs out of memory (a connection's buffers, a response piece)
            // loses that connection, whose handler chain ends here, not the server: Asio lets
            // run() go on after an exception left it.
            for (;;) {
                try {
                    contexts_[i]->run();
                    return;
                } catch (const std::bad_alloc&) {
                    std::fputs("spindle: out of memory in an I/O handler; a connection was lost\n",
                               stderr);
                }
            }
        });
    }
}

void io_threads::stop() noexcept {
    for (auto& context : contexts_) {
        context->stop();
    }
}

void io_threads::join() {
    for (auto& t : threads_) {
        if (t.joinable()) {
            t.join();
        }
    }
    threads_.clear();
}

}  // namespace spindle::server
