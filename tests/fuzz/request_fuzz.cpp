// libFuzzer target: arbitrary bytes as an HTTP/1.1 request, parsed by Beast, mapped to a
// sapi::request the way the front end does (copy_forwardable_headers, host_without_port), and
// run through the embedded PHP engine by a script that writes back $_SERVER and the counts of
// $_COOKIE, $_GET and $_POST. A crash, a sanitizer report, or a $_SERVER that does not mirror
// the request breaks the run:
//   - REQUEST_METHOD, REQUEST_URI, QUERY_STRING are the request's own;
//   - every header PHP may see is there as HTTP_* (CONTENT_TYPE, CONTENT_LENGTH), holding its
//     value;
//   - no other HTTP_* key exists: a header name with '_' or "Proxy" reaches no script.
// Run it with scripts/fuzz.sh (PHP itself is not instrumented; USE_ZEND_ALLOC=0 lets ASan see
// what Spindle does with PHP's memory). OPcache stays out: the fuzzer's static ASan runtime
// refuses to load it.

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "sapi/engine.hpp"
#include "server/http/request_headers.hpp"

namespace {

namespace fs = std::filesystem;
namespace http = boost::beast::http;
using namespace spindle;

// Each $_SERVER entry as "<key length>:<key><value length>:<value>", then the counts.
constexpr std::string_view dump_script = R"php(<?php
foreach ($_SERVER as $k => $v) {
    if (is_string($v)) {
        echo strlen($k), ':', $k, strlen($v), ':', $v;
    }
}
echo '#', count($_COOKIE), ',', count($_GET), ',', count($_POST);
)php";

[[noreturn]] void broken(const char* what, std::string_view detail) {
    std::fprintf(stderr, "request_fuzz: invariant broken: %s (%.*s)\n", what,
                 static_cast<int>(std::min<std::size_t>(detail.size(), 200)), detail.data());
    std::abort();
}

class string_body_source final : public sapi::body_source {
  public:
    explicit string_body_source(std::string_view data) : data_(data) {}
    std::size_t read(char* buffer, std::size_t size) noexcept override {
        const std::size_t n = std::min(size, data_.size());
        std::copy_n(data_.data(), n, buffer);
        data_.remove_prefix(n);
        return n;
    }

  private:
    std::string_view data_;
};

class capture_sink final : public sapi::output_sink {
  public:
    std::string body;
    void send_informational(int, const std::vector<sapi::header>&) noexcept override {}
    void send_head(int, std::string_view, std::vector<sapi::header>) noexcept override {}
    bool write(std::string_view data) noexcept override {
        body.append(data);
        return true;
    }
    bool flush() noexcept override { return true; }
    void finish(bool) noexcept override {}
    bool is_aborted() const noexcept override { return false; }
};

// The engine and its one slot, on the fuzzer's thread, for the whole process.
struct php_fixture {
    std::string root;
    std::string script;
    std::map<std::string, std::string, std::less<>> environment;  ///< HTTP_* the env brings
    std::unique_ptr<sapi::engine> engine;
    std::unique_ptr<sapi::engine::thread_scope> thread;

    php_fixture() {
        auto sink = std::make_shared<spdlog::sinks::null_sink_mt>();
        for (const char* name : {"server", "worker", "sapi", "php", "config", "access"}) {
            spdlog::register_logger(std::make_shared<spdlog::logger>(name, sink));
        }
        std::string pattern = (fs::temp_directory_path() / "spindle-request-fuzz-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            std::abort();
        }
        root = fs::canonical(pattern).string();
        script = root + "/dump.php";
        std::ofstream(script) << dump_script;
        for (char** entry = environ; *entry != nullptr; ++entry) {
            const std::string_view text(*entry);
            if (text.starts_with("HTTP_")) {
                environment.emplace(text.substr(0, text.find('=')), "");
            }
        }
        sapi::engine_options options;
        options.ini_overrides = {{"display_errors", "0"},
                                 {"log_errors", "0"},
                                 {"max_input_vars", "1000"},
                                 {"post_max_size", "1M"},
                                 {"max_execution_time", "10"}};
        options.opcache = false;
        engine = std::make_unique<sapi::engine>(options);
        thread = std::make_unique<sapi::engine::thread_scope>(*engine, 0);
    }
};

// Never destroyed: this thread is both PHP's start-up thread and slot 0, and PHP's module
// shutdown at exit would run on a thread whose context the slot already released.
php_fixture& php() {
    static php_fixture* fixture = new php_fixture;
    return *fixture;
}

// $_SERVER as the script wrote it; aborts on output that does not follow the format.
std::map<std::string, std::string, std::less<>> parse_dump(std::string_view out) {
    std::map<std::string, std::string, std::less<>> server;
    auto take = [&](std::string_view& rest) {
        const std::size_t colon = rest.find(':');
        if (colon == std::string_view::npos || colon == 0 || colon > 10) {
            broken("unparsable dump", rest);
        }
        const std::size_t length = std::stoul(std::string(rest.substr(0, colon)));
        if (rest.size() < colon + 1 + length) {
            broken("short dump", rest);
        }
        std::string value(rest.substr(colon + 1, length));
        rest.remove_prefix(colon + 1 + length);
        return value;
    };
    while (!out.empty() && out.front() != '#') {
        std::string key = take(out);
        server[std::move(key)] = take(out);
    }
    if (out.empty()) {
        broken("the script did not finish", "");
    }
    return server;
}

std::string server_key(std::string_view header) {
    std::string key = "HTTP_";
    for (char c : header) {
        key.push_back(c == '-' ? '_'
                               : static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    }
    if (key == "HTTP_CONTENT_TYPE" || key == "HTTP_CONTENT_LENGTH") {
        key.erase(0, 5);
    }
    return key;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    php();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    php_fixture& fixture = php();
    http::request_parser<http::string_body> parser;
    parser.header_limit(16 * 1024);
    parser.body_limit(64 * 1024);
    parser.eager(true);
    boost::beast::error_code ec;
    parser.put(boost::asio::buffer(data, size), ec);
    if (ec || !parser.is_done()) {
        return 0;
    }
    const auto& message = parser.get();
    const std::string_view target = message.target();
    if (!target.starts_with('/')) {
        return 0;  // the front end answers other forms itself (400, OPTIONS *)
    }

    sapi::request request;
    request.id = 1;
    request.method.assign(message.method_string());
    request.uri.assign(target);
    const std::size_t question = target.find('?');
    if (question != std::string_view::npos) {
        request.query.assign(target.substr(question + 1));
    }
    request.http_version = static_cast<int>(message.version());
    server::copy_forwardable_headers(message, request.headers);
    request.remote_addr = "127.0.0.1";
    request.remote_port = 40000;
    request.server_addr = "127.0.0.1";
    request.server_port = 8080;
    const std::string_view host = message[http::field::host];
    request.server_name.assign(host.empty() ? std::string_view("127.0.0.1")
                                            : server::host_without_port(host));
    request.document_root = fixture.root;
    request.script_filename = fixture.script;
    request.script_name = "/dump.php";
    request.content_type.assign(message[http::field::content_type]);
    request.content_length = message.body().size();
    string_body_source body(message.body());
    capture_sink sink;
    request.body = &body;
    request.sink = &sink;
    fixture.engine->run_script(request, {});

    const auto server = parse_dump(sink.body);
    auto expect = [&](std::string_view key, std::string_view value) {
        const auto it = server.find(key);
        if (it == server.end() || it->second != value) {
            broken("$_SERVER differs from the request", key);
        }
    };
    expect("REQUEST_METHOD", request.method);
    expect("REQUEST_URI", request.uri);
    expect("QUERY_STRING", request.query);
    // The first value of each header name: repeated ones are joined after it.
    std::map<std::string, std::string, std::less<>> headers;
    for (const sapi::header& h : request.headers) {
        headers.emplace(server_key(h.name), h.value);
    }
    for (const auto& [key, value] : headers) {
        if (key == "CONTENT_TYPE" || key == "CONTENT_LENGTH") {
            continue;  // from the request's own fields, below
        }
        const auto it = server.find(key);
        if (it == server.end() || !it->second.starts_with(value)) {
            broken("a forwardable header is missing from $_SERVER", key);
        }
    }
    if (!request.content_type.empty()) {
        expect("CONTENT_TYPE", request.content_type);
    }
    for (const auto& [key, value] : server) {
        if (key.starts_with("HTTP_") && !headers.contains(key) &&
            !fixture.environment.contains(key)) {
            broken("$_SERVER has an HTTP_ key no forwardable header made", key);
        }
    }
    return 0;
}
