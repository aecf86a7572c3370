#include "server/exchange/php_exchange.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include "server/routing/http_context.hpp"
#include "server/routing/server_snapshot.hpp"
#include "worker/pool.hpp"

// The protocol between a PHP thread and its connection's I/O thread (php_exchange.hpp),
// against a fake connection: a real io_context on a thread of its own plays the connection's
// I/O thread, the test's own threads play PHP. Built into spindle_unit_tests, so
// scripts/sanitize.sh runs these under ThreadSanitizer.

namespace spindle::server {
namespace {

using namespace std::chrono_literals;

// The I/O-thread end: records what the exchange posts and, like http_session, acknowledges
// written bytes with on_written() (at once, or only when the test releases them).
class fake_connection final : public response_connection {
  public:
    explicit fake_connection(boost::asio::io_context& io) : io_(io) {}

    boost::asio::any_io_executor executor() override { return io_.get_executor(); }

    void deliver(std::uint64_t request_id, response_piece piece) override {
        std::lock_guard lock(mutex_);
        ids_.push_back(request_id);
        bytes_ += piece.bytes;
        sent_directly_ += piece.sent_directly;
        last_ = last_ || piece.last;
        status_ = piece.status != 0 ? piece.status : status_;
        if (piece.head) {
            heads_.push_back(*piece.head);
        }
        ++pieces_;
        if (auto exchange = exchange_.lock(); exchange && acknowledge_) {
            exchange->on_written(piece.bytes.size());
        } else {
            unacknowledged_ += piece.bytes.size();
        }
        changed_.notify_all();
    }
    void on_direct_completion(std::uint64_t request_id) override {
        std::lock_guard lock(mutex_);
        ids_.push_back(request_id);
        ++direct_notices_;
        changed_.notify_all();
    }
    void on_exchange_failed(std::uint64_t request_id) override {
        std::lock_guard lock(mutex_);
        ids_.push_back(request_id);
        ++failures_;
        changed_.notify_all();
    }

    void attach(const std::shared_ptr<php_exchange>& exchange, bool acknowledge) {
        std::lock_guard lock(mutex_);
        exchange_ = exchange;
        acknowledge_ = acknowledge;
    }
    // The client catches up: everything delivered so far is acknowledged, and so is what comes
    // later (posted to the I/O thread, as the session's on_write runs there).
    void acknowledge_all() {
        boost::asio::post(io_, [this] {
            std::lock_guard lock(mutex_);
            acknowledge_ = true;
            if (auto exchange = exchange_.lock()) {
                exchange->on_written(unacknowledged_);
            }
            unacknowledged_ = 0;
        });
    }
    // Waits (bounded) until `done` holds, under the fake's lock.
    template <typename Predicate>
    bool wait_for(Predicate done) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, 5s, [&] { return done(*this); });
    }

    std::string bytes() const {
        std::lock_guard lock(mutex_);
        return bytes_;
    }

    // Read under mutex_ (through wait_for() or the accessors above).
    std::vector<std::uint64_t> ids_;
    std::string bytes_;
    std::uint64_t sent_directly_ = 0;
    bool last_ = false;
    int status_ = 0;
    std::vector<response_head> heads_;  ///< HTTP/2 heads, in order
    int pieces_ = 0;
    int direct_notices_ = 0;
    int failures_ = 0;
    std::size_t unacknowledged_ = 0;

  private:
    boost::asio::io_context& io_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::weak_ptr<php_exchange> exchange_;
    bool acknowledge_ = true;
};

std::shared_ptr<server_snapshot> make_snapshot(std::size_t memory_size, std::size_t file_size) {
    auto snapshot = std::make_shared<server_snapshot>();
    snapshot->config.limits.response_memory_size = memory_size;
    snapshot->config.limits.max_response_file_size = file_size;
    return snapshot;
}

class PhpExchangeTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        for (const char* name : {"server", "worker"}) {
            if (!spdlog::get(name)) {
                spdlog::register_logger(std::make_shared<spdlog::logger>(
                    name, std::make_shared<spdlog::sinks::null_sink_mt>()));
            }
        }
    }
    void SetUp() override {
        io_thread_ = std::thread([this] { io_.run(); });
    }
    void TearDown() override {
        work_.reset();
        io_thread_.join();
    }

    // Runs `step` on the I/O thread and waits for it.
    template <typename Step>
    auto on_io_thread(Step step) {
        std::packaged_task<decltype(step())()> task(std::move(step));
        auto result = task.get_future();
        boost::asio::post(io_, [&task] { task(); });
        return result.get();
    }

    std::shared_ptr<php_exchange> make_exchange(std::shared_ptr<fake_connection> connection,
                                                std::uint64_t id, bool acknowledge = true) {
        auto exchange = std::make_shared<php_exchange>(connection, context_, snapshot_, false, true,
                                                       no_rules_, nullptr, nullptr);
        exchange->request.id = id;
        exchange->request.http_version = 11;
        exchange->hold(active_response(context_.active_responses));
        connection->attach(exchange, acknowledge);
        return exchange;
    }

    std::uint64_t responses_recorded() const {
        std::uint64_t total = 0;
        for (std::uint64_t n : context_.metrics.read().responses_by_class) {
            total += n;
        }
        return total;
    }

    // http_context names a pool; the exchange never uses it: one without slots, never started.
    worker::pool pool_{worker::pool_options{}};
    std::shared_ptr<server_snapshot> snapshot_ = make_snapshot(256 * 1024, 0);
    http_context context_{snapshot_, pool_, snapshot_->config};
    const std::vector<config::header_rule> no_rules_;
    boost::asio::io_context io_;
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_{
        boost::asio::make_work_guard(io_)};
    std::thread io_thread_;
};

// A connected pair of stream sockets: [0] is the exchange's, [1] the client's.
struct socket_pair {
    socket_pair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0); }
    ~socket_pair() {
        ::close(fds[0]);
        ::close(fds[1]);
    }
    // What the client received so far, without waiting.
    std::string drain() const {
        std::string out;
        char buffer[64 * 1024];
        ssize_t n = 0;
        while ((n = ::recv(fds[1], buffer, sizeof buffer, MSG_DONTWAIT)) > 0) {
            out.append(buffer, static_cast<std::size_t>(n));
        }
        return out;
    }
    int fds[2] = {-1, -1};
};

// What a script does for a small page: head, body, end.
void run_small_script(php_exchange& exchange, std::string_view body) {
    exchange.send_head(200, "", {{"Content-Type", "text/plain"}});
    exchange.write(body);
    exchange.finish(false);
}

TEST_F(PhpExchangeTest, Http2HeadsTravelAsFieldsAndTheBodyUnframed) {
    auto connection = std::make_shared<fake_connection>(io_);
    auto exchange = make_exchange(connection, 11);
    exchange->request.http_version = 20;
    exchange->use_http2();
    std::thread php([&] {
        exchange->send_informational(103, {{"Link", "</a.css>; rel=preload"}});
        exchange->send_head(200, "", {{"Content-type", "text/plain"}, {"Connection", "close"}});
        exchange->write("hello ");
        exchange->flush();  // streamed: no length is known, and HTTP/2 needs no chunks
        exchange->write("world");
        exchange->finish(false);
    });
    php.join();
    ASSERT_TRUE(connection->wait_for([](const fake_connection& c) { return c.last_; }));
    on_io_thread([&] {
        ASSERT_EQ(connection->heads_.size(), 2u);
        EXPECT_EQ(connection->heads_[0].status, 103);
        ASSERT_EQ(connection->heads_[0].fields.size(), 1u);
        EXPECT_EQ(connection->heads_[0].fields[0].name, "link");
        const response_head& head = connection->heads_[1];
        EXPECT_EQ(head.status, 200);
        bool has_type = false;
        for (const head_field& f : head.fields) {
            EXPECT_NE(f.name, "connection");
            EXPECT_NE(f.name, "transfer-encoding");
            EXPECT_NE(f.name, "content-length");
            has_type = has_type || (f.name == "content-type" && f.value == "text/plain");
        }
        EXPECT_TRUE(has_type);
        EXPECT_EQ(connection->bytes_, "hello world");
        EXPECT_EQ(connection->status_, 200);
    });
}

TEST_F(PhpExchangeTest, Http2CompleteResponseHasItsLengthAndGoesThroughTheConnection) {
    auto connection = std::make_shared<fake_connection>(io_);
    auto exchange = make_exchange(connection, 12);
    exchange->request.http_version = 20;
    exchange->use_http2();
    std::thread php([&] { run_small_script(*exchange, "hello"); });
    php.join();
    ASSERT_TRUE(connection->wait_for([](const fake_connection& c) { return c.last_; }));
    on_io_thread([&] {
        ASSERT_EQ(connection->heads_.size(), 1u);
        bool has_length = false;
        for (const head_field& f : connection->heads_[0].fields) {
            has_length = has_length || (f.name == "content-length" && f.value == "5");
        }
        EXPECT_TRUE(has_length);
        EXPECT_EQ(connection->bytes_, "hello");
    });
    // No direct write over HTTP/2: the connection completes the response.
    EXPECT_EQ(exchange->state(), exchange_state::relayed);
}

TEST_F(PhpExchangeTest, SmallCompleteResponseIsWrittenDirectlyAndCompletedByThePhpThread) {
    auto connection = std::make_shared<fake_connection>(io_);
    socket_pair sockets;
    auto exchange = make_exchange(connection, 7);
    exchange->allow_direct_write(sockets.fds[0], std::chrono::steady_clock::now(), nullptr);
    EXPECT_EQ(context_.active_responses.load(), 1u);

    std::thread php([&] { run_small_script(*exchange, "hello"); });
    php.join();

    const std::string wire = sockets.drain();
    EXPECT_EQ(wire.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << wire;
    EXPECT_NE(wire.find("\r\nContent-Length: 5\r\n"), std::string::npos) << wire;
    EXPECT_EQ(wire.substr(wire.size() - 9), "\r\n\r\nhello");
    EXPECT_EQ(exchange->state(), exchange_state::written);
    // The PHP thread owned the completion: the count ended, the metric was recorded, once.
    EXPECT_EQ(context_.active_responses.load(), 0u);
    EXPECT_EQ(responses_recorded(), 1u);
    EXPECT_EQ(context_.metrics.read().responses_by_class[1], 1u);
    // The session, watching, learns it from stop_watching(); nothing was posted to it.
    EXPECT_TRUE(on_io_thread([&] { return exchange->stop_watching(); }));
    EXPECT_TRUE(exchange->direct_completion().has_value());
    EXPECT_FALSE(on_io_thread([&] { return exchange->abort().has_value(); }));
    EXPECT_EQ(on_io_thread([&] { return connection->pieces_; }), 0);
}

TEST_F(PhpExchangeTest, DirectWriteAfterTheSessionStoppedWatchingPostsOneNotice) {
    auto connection = std::make_shared<fake_connection>(io_);
    socket_pair sockets;
    auto exchange = make_exchange(connection, 8);
    exchange->allow_direct_write(sockets.fds[0], std::chrono::steady_clock::now(), nullptr);
    EXPECT_FALSE(on_io_thread([&] { return exchange->stop_watching(); }));
    EXPECT_EQ(exchange->state(), exchange_state::unwatched);

    std::thread php([&] { run_small_script(*exchange, "hi"); });
    php.join();

    ASSERT_TRUE(
        connection->wait_for([](const fake_connection& c) { return c.direct_notices_ == 1; }));
    EXPECT_EQ(on_io_thread([&] { return connection->ids_; }), std::vector<std::uint64_t>{8});
    EXPECT_EQ(context_.active_responses.load(), 0u);
    EXPECT_NE(sockets.drain().find("\r\n\r\nhi"), std::string::npos);
}

TEST_F(PhpExchangeTest, PartialDirectWriteLeavesTheRestToTheConnection) {
    auto connection = std::make_shared<fake_connection>(io_);
    socket_pair sockets;
    // A small socket buffer the client does not read: the PHP thread's one send() is partial.
    const int small = 4096;
    ASSERT_EQ(::setsockopt(sockets.fds[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
    auto exchange = make_exchange(connection, 9);
    exchange->allow_direct_write(sockets.fds[0], std::chrono::steady_clock::now(), nullptr);
    const std::string body(60 * 1024, 'x');  // under commit_threshold: one complete response

    std::thread php([&] { run_small_script(*exchange, body); });
    php.join();

    ASSERT_TRUE(connection->wait_for([](const fake_connection& c) { return c.last_; }));
    const std::string direct = sockets.drain();
    const auto [relayed, sent_directly, pieces] = on_io_thread([&] {
        return std::tuple(connection->bytes_, connection->sent_directly_, connection->pieces_);
    });
    ASSERT_GT(direct.size(), 0u);
    EXPECT_EQ(sent_directly, direct.size());
    EXPECT_EQ(pieces, 1);
    // Not a byte lost or sent twice: what went directly and what was relayed make one response.
    const std::string wire = direct + relayed;
    EXPECT_EQ(wire.rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
    EXPECT_NE(wire.find("\r\nContent-Length: 61440\r\n"), std::string::npos);
    EXPECT_EQ(wire.substr(wire.find("\r\n\r\n") + 4), body);
    // Relayed: the session completes it, with the in-flight count it takes back.
    EXPECT_EQ(exchange->state(), exchange_state::relayed);
    EXPECT_EQ(responses_recorded(), 0u);
    EXPECT_EQ(context_.active_responses.load(), 1u);
    auto in_flight = on_io_thread([&] { return exchange->take_in_flight(); });
    EXPECT_TRUE(in_flight.has_value());
    in_flight.reset();
    EXPECT_EQ(context_.active_responses.load(), 0u);
}

TEST_F(PhpExchangeTest, SlowClientHoldsTheWriterOnlyPastTheMemoryBound) {
    snapshot_->config.limits.response_memory_size = 16 * 1024;
    auto connection = std::make_shared<fake_connection>(io_);
    auto exchange = make_exchange(connection, 10, /*acknowledge=*/false);
    std::atomic<int> writes_done{0};
    std::atomic<bool> finished{false};
    const std::string chunk(php_exchange::commit_threshold, 'y');

    std::thread php([&] {
        exchange->send_head(200, "", {{"Content-Type", "text/plain"}});
        for (int i = 0; i < 4; ++i) {
            EXPECT_TRUE(exchange->write(chunk));
            ++writes_done;
        }
        exchange->finish(false);
        finished = true;
    });
    // The first chunk commits the response and is taken whatever its size; the next must wait
    // for the client (no spill file here), so the PHP thread stops there.
    ASSERT_TRUE(connection->wait_for([](const fake_connection& c) { return c.pieces_ >= 1; }));
    std::this_thread::sleep_for(200ms);
    EXPECT_LE(writes_done.load(), 2);
    EXPECT_FALSE(finished.load());
    EXPECT_GT(context_.response_memory.used(), 0u);

    connection->acknowledge_all();
    php.join();
    ASSERT_TRUE(connection->wait_for([](const fake_connection& c) { return c.last_; }));
    EXPECT_EQ(writes_done.load(), 4);
    // Chunked (the script streamed past commit_threshold), every byte in order.
    const std::string wire = connection->bytes();
    EXPECT_NE(wire.find("\r\nTransfer-Encoding: chunked\r\n"), std::string::npos);
    EXPECT_EQ(wire.substr(wire.size() - 5), "0\r\n\r\n");
    EXPECT_EQ(on_io_thread([&] { return connection->status_; }), 200);
    // Every byte the client took was given back to the shared budget.
    on_io_thread([] { return 0; });
    EXPECT_EQ(context_.response_memory.used(), 0u);
}

TEST_F(PhpExchangeTest, ConnectionClosingWhilePhpWaitsForItFreesThePhpThread) {
    snapshot_->config.limits.response_memory_size = 16 * 1024;
    auto connection = std::make_shared<fake_connection>(io_);
    auto exchange = make_exchange(connection, 11, /*acknowledge=*/false);
    const std::string chunk(php_exchange::commit_threshold, 'z');
    std::atomic<bool> write_failed{false};

    std::thread php([&] {
        exchange->send_head(200, "", {});
        for (int i = 0; i < 8 && !write_failed; ++i) {
            write_failed = !exchange->write(chunk);
        }
        exchange->finish(false);
    });
    ASSERT_TRUE(connection->wait_for([](const fake_connection& c) { return c.pieces_ >= 1; }));
    // The session closes: it takes the count back and the waiting PHP thread is woken.
    auto in_flight = on_io_thread([&] { return exchange->abort(); });
    php.join();
    EXPECT_TRUE(write_failed.load());
    EXPECT_TRUE(exchange->is_aborted());
    EXPECT_EQ(exchange->state(), exchange_state::aborted);
    EXPECT_TRUE(in_flight.has_value());
    in_flight.reset();
    EXPECT_EQ(context_.active_responses.load(), 0u);
    // The memory of pieces never written is released with the abort.
    EXPECT_EQ(context_.response_memory.used(), 0u);
    EXPECT_EQ(responses_recorded(), 0u);
}

TEST_F(PhpExchangeTest, ClientAbortRacingADirectWriteCompletesTheResponseExactlyOnce) {
    // Many rounds of the same race: the PHP thread writes its complete response directly
    // while the I/O thread aborts (the client's connection reset). Whichever wins, the count
    // ends once and the response is completed by one side only.
    constexpr int rounds = 300;
    int written = 0;
    for (int round = 0; round < rounds; ++round) {
        auto connection = std::make_shared<fake_connection>(io_);
        socket_pair sockets;
        auto exchange = make_exchange(connection, 100 + static_cast<std::uint64_t>(round));
        exchange->allow_direct_write(sockets.fds[0], std::chrono::steady_clock::now(), nullptr);
        std::promise<void> go;
        std::shared_future<void> start = go.get_future().share();

        std::thread php([&] {
            start.wait();
            run_small_script(*exchange, "race");
        });
        std::promise<std::optional<active_response>> aborted;
        auto taken = aborted.get_future();
        boost::asio::post(io_, [&] {
            start.wait();
            aborted.set_value(exchange->abort());
        });
        go.set_value();
        php.join();
        std::optional<active_response> in_flight = taken.get();

        const exchange_state state = exchange->state();
        ASSERT_TRUE(state == exchange_state::written || state == exchange_state::aborted)
            << to_string(state);
        // written: the PHP thread ended the count and abort() gave nothing back; aborted: the
        // session holds the count and ends it.
        EXPECT_EQ(in_flight.has_value(), state == exchange_state::aborted);
        in_flight.reset();
        EXPECT_EQ(context_.active_responses.load(), 0u);
        written += state == exchange_state::written ? 1 : 0;
        EXPECT_EQ(responses_recorded(), static_cast<std::uint64_t>(written));
    }
    EXPECT_EQ(context_.response_memory.used(), 0u);
}

TEST_F(PhpExchangeTest, ClientLeavingAsSoonAsItReadsADirectWriteFindsTheResponseWritten) {
    // The client reads the whole response and leaves at once; the I/O thread sees it leave as
    // http_session does (stop_watching(), then abort() at the end of the stream). The bytes
    // were out, so the response is written and counted, never aborted: a script still running
    // after frankenphp_finish_request() must not be told that its client left.
    constexpr int rounds = 300;
    for (int round = 0; round < rounds; ++round) {
        auto connection = std::make_shared<fake_connection>(io_);
        socket_pair sockets;
        auto exchange = make_exchange(connection, 1000 + static_cast<std::uint64_t>(round));
        exchange->allow_direct_write(sockets.fds[0], std::chrono::steady_clock::now(), nullptr);
        std::thread php([&] { run_small_script(*exchange, "gone"); });
        std::string wire;
        char buffer[4096];
        while (!wire.ends_with("\r\n\r\ngone")) {
            const ssize_t n = ::recv(sockets.fds[1], buffer, sizeof buffer, 0);
            if (n <= 0) {
                break;
            }
            wire.append(buffer, static_cast<std::size_t>(n));
        }
        const bool written = on_io_thread([&] {
            if (exchange->stop_watching()) {
                return true;
            }
            // The session ends the count that abort() gives back, as `taken` does here.
            const std::optional<active_response> taken = exchange->abort();
            return !taken.has_value() && exchange->state() == exchange_state::written;
        });
        php.join();
        EXPECT_TRUE(wire.ends_with("\r\n\r\ngone")) << wire;
        EXPECT_TRUE(written) << "round " << round << ": " << to_string(exchange->state());
        EXPECT_FALSE(exchange->is_aborted());
        EXPECT_EQ(responses_recorded(), static_cast<std::uint64_t>(round + 1));
        EXPECT_EQ(context_.active_responses.load(), 0u);
        if (::testing::Test::HasFailure()) {
            break;
        }
    }
}

TEST_F(PhpExchangeTest, InterimResponseIsRelayedAndTheFinalOneFollowsIt) {
    auto connection = std::make_shared<fake_connection>(io_);
    socket_pair sockets;
    auto exchange = make_exchange(connection, 12);
    exchange->allow_direct_write(sockets.fds[0], std::chrono::steady_clock::now(), nullptr);

    std::thread php([&] {
        exchange->send_informational(103, {{"Link", "</app.css>; rel=preload"}});
        run_small_script(*exchange, "page");
    });
    php.join();

    ASSERT_TRUE(connection->wait_for([](const fake_connection& c) { return c.last_; }));
    // Once bytes went through the I/O thread, the rest must follow them there, in order.
    EXPECT_EQ(sockets.drain(), "");
    const std::string wire = connection->bytes();
    EXPECT_EQ(wire.rfind("HTTP/1.1 103 Early Hints\r\nLink: </app.css>; rel=preload\r\n\r\n"
                         "HTTP/1.1 200 OK\r\n",
                         0),
              0u)
        << wire;
    EXPECT_EQ(exchange->state(), exchange_state::relayed);
}

TEST_F(PhpExchangeTest, LateNoticesNameTheirRequest) {
    auto connection = std::make_shared<fake_connection>(io_);
    auto first = make_exchange(connection, 21);
    std::thread([&] { run_small_script(*first, "one"); }).join();
    auto second = make_exchange(connection, 22);
    std::thread([&] { run_small_script(*second, "two"); }).join();
    ASSERT_TRUE(connection->wait_for([](const fake_connection& c) { return c.ids_.size() == 2; }));
    EXPECT_EQ(on_io_thread([&] { return connection->ids_; }), (std::vector<std::uint64_t>{21, 22}));
}

}  // namespace
}  // namespace spindle::server
