// libFuzzer target: arbitrary bytes after the HTTP/2 client preface, into a real
// http2_session (server/http2/http2_session.hpp) on one end of a socket pair, its I/O run
// until it is quiet, then the client's end closed. The site answers from a `respond` rule and
// static files (PHP is off: no engine here), so every frame path of the connection runs:
// HEADERS and CONTINUATION into requests, DATA into bodies, flow control, resets, GOAWAY,
// static files with ranges. A crash, a sanitizer report, or a connection that ends with a
// request still counted in flight or response memory still taken breaks the run.
// Run it with scripts/fuzz.sh SECONDS --http2.

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "server/http/session_stream.hpp"
#include "server/http2/http2_session.hpp"
#include "server/routing/http_context.hpp"
#include "server/routing/server_snapshot.hpp"
#include "worker/pool.hpp"

namespace {

namespace fs = std::filesystem;
using namespace spindle;
using namespace spindle::server;

constexpr std::string_view preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

void check(bool holds, const char* what) {
    if (!holds) {
        std::fprintf(stderr, "http2_fuzz: invariant broken: %s\n", what);
        std::abort();
    }
}

// What every input shares: a static site with a respond rule, and the server's context.
struct fixture {
    fixture() {
        for (const char* name : {"server", "worker", "access"}) {
            spdlog::register_logger(std::make_shared<spdlog::logger>(
                name, std::make_shared<spdlog::sinks::null_sink_mt>()));
        }
        root = fs::temp_directory_path() / ("http2_fuzz." + std::to_string(::getpid()));
        fs::create_directories(root);
        std::ofstream(root / "index.html") << "<!doctype html><p>hello</p>\n";
        std::ofstream(root / "data.txt") << std::string(100'000, 'x');
        auto next = std::make_shared<server_snapshot>();
        next->config.limits.max_header_size = 16 * 1024;
        next->config.limits.max_body_size = 256 * 1024;
        next->config.limits.response_memory_size = 32 * 1024;
        next->sites.resize(1);
        site_context& site = next->sites[0];
        site.name = "fuzz";
        site.router.root = fs::canonical(root).string();
        site.router.php = false;
        site.responds.push_back({"/fixed", 200, "fixed answer\n"});
        site.headers.push_back({config::header_rule::op::set, "X-Fuzz", "1"});
        next->addresses.push_back({address, {&next->sites[0]}, nullptr});
        snapshot = next;
        context = std::make_unique<http_context>(snapshot, pool, snapshot->config);
    }

    config::listen_address address{"127.0.0.1", 80};
    fs::path root;
    worker::pool pool{worker::pool_options{}};
    std::shared_ptr<const server_snapshot> snapshot;
    std::unique_ptr<http_context> context;
};

fixture& shared() {
    static fixture f;
    return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fixture& f = shared();
    int fds[2];
    check(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0, "socketpair");
    {
        boost::asio::io_context io;
        boost::asio::ip::tcp::socket socket(io);
        socket.assign(boost::asio::ip::tcp::v4(), fds[0]);
        auto stream = std::make_shared<session_stream>(std::move(socket));
        connection_facts facts{f.address, "127.0.0.1", 40000, false, "127.0.0.1", 80, {}, {}};
        std::string received(preface);
        received.append(reinterpret_cast<const char*>(data), size);
        auto session = std::make_shared<http2_session>(stream, *stream, *f.context,
                                                       std::move(facts), std::move(received));
        session->start();
        session.reset();
        // The server answers; the client reads everything, so no write waits on it.
        char sink[64 * 1024];
        for (int round = 0; round < 64 && io.poll() > 0; ++round) {
            while (::recv(fds[1], sink, sizeof sink, MSG_DONTWAIT) > 0) {
            }
        }
        // The client leaves: the session closes and lets everything go.
        ::close(fds[1]);
        io.run_for(std::chrono::seconds(2));
        check(io.stopped(), "the connection did not end when its client left");
    }
    check(f.context->active_responses.load() == 0, "a request still counted in flight");
    check(f.context->response_memory.used() == 0, "response memory still taken");
    return 0;
}
