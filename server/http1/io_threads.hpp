#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

namespace spindle::server {

/// The I/O threads: one io_context per thread, each run by that thread alone.
///
/// A connection lives on one context from accept to close, so its handlers never run
/// concurrently and need no strand: no strand mutex, no strand queue, no hand-off of a ready
/// handler from one thread to another (on 2 cores, a worker hello request went from 27.8 to
/// 27.2 us of server CPU with one I/O thread and from 34.7 to 30.3 us with two; bench/RESULTS.md
/// item 6). PHP threads post to a connection's context, which wakes only the thread that owns
/// it.
///
/// Context 0 also runs what is not a connection: the listeners' accepts, the admin endpoint,
/// signals and the control strand.
///
/// Threads: constructed, started, stopped and joined by the control thread; next_executor()
/// on whichever thread accepts; stop() from any thread.
class io_threads {
  public:
    /// `count` threads (at least 1); none runs until start().
    explicit io_threads(std::size_t count);
    /// Stops and joins the threads if they still run.
    ~io_threads();
    io_threads(const io_threads&) = delete;
    io_threads& operator=(const io_threads&) = delete;

    /// Context 0: listeners, admin endpoint, signals, timers of the control strand.
    boost::asio::io_context& main() noexcept { return *contexts_.front(); }

    /// The context a new connection lives on: each in turn (any thread).
    boost::asio::io_context::executor_type next_executor() noexcept;

    /// Starts one thread per context; each runs until stop().
    void start();
    /// Makes every thread's run() return as soon as its current handler ends (any thread).
    void stop() noexcept;
    /// Waits for every thread to end (control thread, after stop()).
    void join();

  private:
    using work_guard = boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;

    std::vector<std::unique_ptr<boost::asio::io_context>> contexts_;
    /// A context with no connection yet has no work; its thread must wait, not return.
    std::vector<work_guard> guards_;
    std::vector<std::thread> threads_;
    std::atomic<std::size_t> next_{0};
};

}  // namespace spindle::server
