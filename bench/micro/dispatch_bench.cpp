// The hand-off of one request between an I/O thread and a PHP slot, without PHP or HTTP:
// what the pool and the wake-ups cost, which hello world pays on every request.
//
// The benchmark thread plays the I/O thread: it submits a request to a pool of one idle slot
// and runs its io_context until the answer is back. The slot's runtime answers at once by
// calling the request's sink, as a script's end calls php_exchange::finish():
//  - BM_dispatch_posted_back: the sink posts the answer to the io_context, as every response
//    did before the direct write (and as TLS responses still do);
//  - BM_dispatch_socket_back: the sink writes one byte on a socket whose other end the I/O
//    thread waits on, as a direct write ends in the client's next request waking it.
//
//   spindle_micro_bench --benchmark_filter=BM_dispatch

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/connect_pair.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <memory>
#include <thread>

#include <benchmark/benchmark.h>

#include "sapi/request.hpp"
#include "worker/pool.hpp"
#include "worker/slot_runtime.hpp"

namespace {

using spindle::sapi::header;
using spindle::sapi::output_sink;
using namespace spindle::worker;

// A slot runtime without PHP: each request is answered by finishing its sink (slot thread).
class answering_runtime final : public slot_runtime {
  public:
    void run_thread(std::size_t index, pool& host) override {
        while (job j = host.next_job(index)) {
            j->sink->finish(false);
        }
    }
};

// The answer goes back to the I/O thread as a posted handler.
class posting_sink final : public output_sink {
  public:
    explicit posting_sink(boost::asio::io_context& io) : io_(io) {}
    void send_informational(int, const std::vector<header>&) noexcept override {}
    void send_head(int, std::string_view, std::vector<header>) noexcept override {}
    bool write(std::string_view) noexcept override { return true; }
    bool flush() noexcept override { return true; }
    void finish(bool) noexcept override {
        boost::asio::post(io_, [this] { answered_ = true; });
    }
    bool is_aborted() const noexcept override { return false; }

    bool answered_ = false;  ///< I/O thread only

  private:
    boost::asio::io_context& io_;
};

// The answer is a byte on a socket the I/O thread waits on.
class socket_sink final : public output_sink {
  public:
    explicit socket_sink(int fd) : fd_(fd) {}
    void send_informational(int, const std::vector<header>&) noexcept override {}
    void send_head(int, std::string_view, std::vector<header>) noexcept override {}
    bool write(std::string_view) noexcept override { return true; }
    bool flush() noexcept override { return true; }
    void finish(bool) noexcept override {
        const char byte = 'x';
        (void)::send(fd_, &byte, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
    }
    bool is_aborted() const noexcept override { return false; }

  private:
    int fd_;
};

void submit_or_fail(benchmark::State& state, pool& slots, const job& request) {
    std::uint64_t ticket = 0;
    if (slots.submit(0, request, &ticket) != submit_result::assigned) {
        state.SkipWithError("the slot was not idle");
    }
}

void BM_dispatch_posted_back(benchmark::State& state) {
    boost::asio::io_context io(1);
    // run_one() then waits for the answer instead of returning at once for lack of work.
    auto work = boost::asio::make_work_guard(io);
    answering_runtime runtime;
    pool slots(pool_options{{group_options{"classic", 1, unowned(runtime)}}, 16});
    slots.start();
    posting_sink sink(io);
    auto request = std::make_shared<spindle::sapi::request>();
    request->sink = &sink;
    for (auto _ : state) {
        sink.answered_ = false;
        submit_or_fail(state, slots, request);
        while (!sink.answered_) {
            io.run_one();
        }
        // The slot returns to the idle list just after finish(): wait for it, so that each
        // iteration finds it sleeping, as a request arriving after the last one does.
        while (slots.stats().busy != 0) {
            std::this_thread::yield();
        }
    }
    slots.stop();
}
BENCHMARK(BM_dispatch_posted_back)->UseRealTime();

void BM_dispatch_socket_back(benchmark::State& state) {
    boost::asio::io_context io(1);
    // run_one() then waits for the answer instead of returning at once for lack of work.
    auto work = boost::asio::make_work_guard(io);
    boost::asio::local::stream_protocol::socket reader(io);
    boost::asio::local::stream_protocol::socket writer(io);
    boost::asio::local::connect_pair(reader, writer);
    answering_runtime runtime;
    pool slots(pool_options{{group_options{"classic", 1, unowned(runtime)}}, 16});
    slots.start();
    socket_sink sink(writer.native_handle());
    auto request = std::make_shared<spindle::sapi::request>();
    request->sink = &sink;
    char byte = 0;
    for (auto _ : state) {
        bool answered = false;
        submit_or_fail(state, slots, request);
        reader.async_receive(boost::asio::buffer(&byte, 1),
                             [&](boost::system::error_code, std::size_t) { answered = true; });
        while (!answered) {
            io.run_one();
        }
        while (slots.stats().busy != 0) {
            std::this_thread::yield();
        }
    }
    slots.stop();
}
BENCHMARK(BM_dispatch_socket_back)->UseRealTime();

}  // namespace
