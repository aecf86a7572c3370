// What building one request's superglobals costs, through the real SAPI path: the engine is
// started with one slot and the benchmarks run on that slot's thread. A classic request is
// php_request_startup, the auto-globals a script would name built, php_request_shutdown; a
// worker request is one frankenphp_handle_request() round of a resident script. Plus the
// $_SERVER build alone (old and new way), and the header-name lookups.
//
//   spindle_micro_bench --env-vars=N [--variables-order=EGPCS] [Google Benchmark flags]
//
// N environment variables of about 40 characters are added to the process environment before
// the engine starts (the engine copies the environment once, at start-up), so each size needs
// its own process: bench/superglobals.sh runs 10, 100 and 1,000 and prints the growth.
//
// The main thread starts and stops the engine (control thread); the benchmarks run on one slot
// thread.

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "sapi/engine.hpp"
#include "sapi/env_snapshot.hpp"
#include "sapi/log_sink.hpp"
#include "sapi/php.hpp"
#include "sapi/server_keys.hpp"
#include "sapi/server_variables.hpp"
#include "sapi/slot_context.hpp"
#include "sapi/worker_script.hpp"

extern char** environ;

namespace {

using namespace spindle::sapi;

// Output goes nowhere: none of the benchmarks prints, but request shutdown sends headers.
class null_sink final : public output_sink {
  public:
    void send_informational(int, const std::vector<header>&) noexcept override {}
    void send_head(int, std::string_view, std::vector<header>) noexcept override {}
    bool write(std::string_view) noexcept override { return true; }
    bool flush() noexcept override { return true; }
    void finish(bool) noexcept override {}
    bool is_aborted() const noexcept override { return false; }
};

null_sink sink;
empty_body body;

// A browser's GET with 15 headers, one of them uncommon.
request make_request() {
    request req;
    req.id = 1;
    req.method = "GET";
    req.uri = "/index.php?page=2&sort=name";
    req.query = "page=2&sort=name";
    req.remote_addr = "192.0.2.10";
    req.remote_port = 51234;
    req.server_addr = "127.0.0.1";
    req.server_port = 8080;
    req.server_name = "example.test";
    req.document_root = "/srv/app/public";
    req.script_filename = "/srv/app/public/index.php";
    req.script_name = "/index.php";
    req.start_time = 1.7e9;
    req.body = &body;
    req.sink = &sink;
    req.headers = {
        {"Host", "example.test:8080"},
        {"User-Agent",
         "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0"},
        {"Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
        {"Accept-Language", "en-GB,en;q=0.9,de;q=0.8"},
        {"Accept-Encoding", "gzip, deflate, br"},
        {"Connection", "keep-alive"},
        {"Cookie", "session=4f1c2a9b8e7d6c5b4a39281706f5e4d3; theme=dark"},
        {"Referer", "https://example.test/index.php?page=1"},
        {"Upgrade-Insecure-Requests", "1"},
        {"Sec-Fetch-Dest", "document"},
        {"Sec-Fetch-Mode", "navigate"},
        {"Sec-Fetch-Site", "same-origin"},
        {"Cache-Control", "max-age=0"},
        {"X-Forwarded-For", "198.51.100.7"},
        {"X-Shop-Tenant", "acme"},
    };
    return req;
}

request bench_request = make_request();

slot_context& slot() {
    return *current_slot();
}

// --- a classic request's superglobals -----------------------------------------------------

// php_request_startup + php_request_shutdown only: the floor the others add to.
void BM_classic_request_empty(benchmark::State& state) {
    slot_context& ctx = slot();
    for (auto _ : state) {
        bind_request(ctx, bench_request);
        php_request_startup();
        php_request_shutdown(nullptr);
        unbind_request(ctx);
    }
}
BENCHMARK(BM_classic_request_empty);

// A classic request that builds the auto-globals a script names (a compiled reference to
// $_SERVER or $_ENV makes PHP build it, as `server` and `env` do here).
void classic_request_loop(benchmark::State& state, bool server, bool env) {
    slot_context& ctx = slot();
    for (auto _ : state) {
        bind_request(ctx, bench_request);
        php_request_startup();
        if (server) {
            zend_is_auto_global(ZSTR_KNOWN(ZEND_STR_AUTOGLOBAL_SERVER));
        }
        if (env) {
            zend_is_auto_global(ZSTR_KNOWN(ZEND_STR_AUTOGLOBAL_ENV));
        }
        php_request_shutdown(nullptr);
        unbind_request(ctx);
    }
}

void BM_classic_request_server(benchmark::State& state) {
    classic_request_loop(state, true, false);
}
BENCHMARK(BM_classic_request_server);

void BM_classic_request_env(benchmark::State& state) {
    classic_request_loop(state, false, true);
}
BENCHMARK(BM_classic_request_env);

// Both, as a script that names $_SERVER and $_ENV.
void BM_classic_request_superglobals(benchmark::State& state) {
    classic_request_loop(state, true, true);
}
BENCHMARK(BM_classic_request_superglobals);

double thread_cpu_ns() {
    timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
}

// What building $_SERVER and $_ENV adds to a classic request, measured pairwise: each
// iteration runs a request that builds none and one that builds both, and the counter
// `added_ns` is the mean difference of their thread CPU times. The two whole-request
// benchmarks above run seconds apart; on a loaded machine their difference is mostly noise.
void BM_classic_superglobals_added(benchmark::State& state) {
    slot_context& ctx = slot();
    double added = 0;
    auto one_request = [&ctx](bool superglobals) {
        bind_request(ctx, bench_request);
        php_request_startup();
        if (superglobals) {
            zend_is_auto_global(ZSTR_KNOWN(ZEND_STR_AUTOGLOBAL_SERVER));
            zend_is_auto_global(ZSTR_KNOWN(ZEND_STR_AUTOGLOBAL_ENV));
        }
        php_request_shutdown(nullptr);
        unbind_request(ctx);
    };
    for (auto _ : state) {
        double start = thread_cpu_ns();
        one_request(false);
        double middle = thread_cpu_ns();
        one_request(true);
        added += (thread_cpu_ns() - middle) - (middle - start);
    }
    state.counters["added_ns"] = benchmark::Counter(added, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_classic_superglobals_added);

// --- a worker's requests -------------------------------------------------------------------

// Set by main() before the benchmarks run.
engine* bench_engine = nullptr;
std::string worker_file;

// One worker request of a resident script whose handler reads $_SERVER: the script boots
// once (untimed), then every iteration is one frankenphp_handle_request() round, which
// rebuilds $_SERVER's request part on the array the thread keeps.
void BM_worker_request(benchmark::State& state) {
    worker_script script;
    script.name = "bench";
    script.file = worker_file;
    script.document_root = bench_request.document_root;
    script.script_name = "/worker.php";
    worker_hooks hooks;
    hooks.next_request = [&state]() -> request* {
        return state.KeepRunning() ? &bench_request : nullptr;
    };
    bench_engine->run_worker(script, hooks);
}
BENCHMARK(BM_worker_request);

// --- $_SERVER alone, inside one request ----------------------------------------------------

// Runs `build` on a fresh PG(http_globals)[TRACK_VARS_SERVER] per iteration, inside one
// request, and frees it: what php_register_server_variables() costs beyond the request.
template <typename Build>
void server_array_loop(benchmark::State& state, Build build) {
    slot_context& ctx = slot();
    bind_request(ctx, bench_request);
    php_request_startup();
    zval* server = &PG(http_globals)[TRACK_VARS_SERVER];
    for (auto _ : state) {
        zval_ptr_dtor(server);
        array_init(server);
        build(server);
        benchmark::DoNotOptimize(Z_ARRVAL_P(server));
    }
    zval_ptr_dtor(server);
    ZVAL_UNDEF(server);
    php_request_shutdown(nullptr);
    unbind_request(ctx);
}

// The environment copied (one zend_array_dup() of the prepared array) plus the request's
// variables: $_SERVER as a worker's first request, getenv() without arguments, or a classic
// request whose slot cannot lend its own copy builds it. A classic request normally borrows
// the slot's copy instead (env_arrays.hpp), which only the whole-request benchmarks above
// can show: it is given back at request shutdown.
void BM_server_array(benchmark::State& state) {
    server_array_loop(state, [](zval* server) {
        php_import_environment_variables(server);
        register_server_variables(slot(), server);
    });
}
BENCHMARK(BM_server_array);

// The environment copy alone.
void BM_env_array(benchmark::State& state) {
    server_array_loop(state, [](zval* server) { php_import_environment_variables(server); });
}
BENCHMARK(BM_env_array);

// The request's variables alone, one-pass builder.
void BM_server_request_part(benchmark::State& state) {
    server_array_loop(state, [](zval* server) { register_server_variables(slot(), server); });
}
BENCHMARK(BM_server_request_part);

// The same variables the way Spindle registered them before the one-pass builder (and the
// way php-fpm does): estrndup, input_filter, php_register_variable_safe, one name at a time,
// header names converted on every request.
void register_like_php(const char* name, std::string_view value, zval* array) {
    char* copy = estrndup(value.data(), value.size());
    size_t new_length = value.size();
    if (sapi_module.input_filter(PARSE_SERVER, name, &copy, value.size(), &new_length)) {
        php_register_variable_safe(name, copy, new_length, array);
    }
    efree(copy);
}

void BM_server_request_part_per_variable(benchmark::State& state) {
    server_array_loop(state, [](zval* server) {
        const request& req = bench_request;
        std::string number;
        register_like_php("SERVER_SOFTWARE", "Spindle/" SPINDLE_BENCH_VERSION, server);
        register_like_php("GATEWAY_INTERFACE", "CGI/1.1", server);
        register_like_php("SERVER_PROTOCOL", "HTTP/1.1", server);
        register_like_php("REQUEST_SCHEME", "http", server);
        register_like_php("SERVER_NAME", req.server_name, server);
        register_like_php("SERVER_ADDR", req.server_addr, server);
        number = std::to_string(req.server_port);
        register_like_php("SERVER_PORT", number, server);
        register_like_php("REMOTE_ADDR", req.remote_addr, server);
        register_like_php("REMOTE_HOST", req.remote_addr, server);
        number = std::to_string(req.remote_port);
        register_like_php("REMOTE_PORT", number, server);
        register_like_php("REQUEST_METHOD", req.method, server);
        register_like_php("REQUEST_URI", req.uri, server);
        register_like_php("QUERY_STRING", req.query, server);
        register_like_php("DOCUMENT_ROOT", req.document_root, server);
        register_like_php("DOCUMENT_URI", req.script_name, server);
        register_like_php("SCRIPT_FILENAME", req.script_filename, server);
        register_like_php("SCRIPT_NAME", req.script_name, server);
        register_like_php("PATH_INFO", req.path_info, server);
        register_like_php("PHP_SELF", req.script_name + req.path_info, server);
        register_like_php("CONTENT_TYPE", req.content_type, server);
        register_like_php("CONTENT_LENGTH", "", server);
        std::string name;
        for (const header& h : req.headers) {
            http_variable_name(h.name, name);
            register_like_php(name.c_str(), h.value, server);
        }
    });
}
BENCHMARK(BM_server_request_part_per_variable);

// --- header names --------------------------------------------------------------------------

std::vector<std::string> uncommon_names() {
    std::vector<std::string> names;
    for (int i = 0; i < 15; ++i) {
        names.push_back("X-App-Header-" + std::to_string(i));
    }
    return names;
}

// The 14 common names of the request: one case-insensitive lookup each.
void BM_header_key_common(benchmark::State& state) {
    for (auto _ : state) {
        for (const header& h : bench_request.headers) {
            benchmark::DoNotOptimize(common_header_key(h.name));
        }
    }
    state.SetItemsProcessed(state.iterations() * bench_request.headers.size());
}
BENCHMARK(BM_header_key_common);

// 15 uncommon names, found in the slot's cache (every request after a name's first).
void BM_header_key_cached(benchmark::State& state) {
    const std::vector<std::string> names = uncommon_names();
    header_key_cache cache;
    for (auto _ : state) {
        for (const std::string& name : names) {
            benchmark::DoNotOptimize(cache.find_or_convert(name));
        }
    }
    state.SetItemsProcessed(state.iterations() * names.size());
}
BENCHMARK(BM_header_key_cached);

// 15 uncommon names converted each time, as without the cache: the HTTP_* name, a string for
// it, its hash.
void BM_header_key_uncached(benchmark::State& state) {
    const std::vector<std::string> names = uncommon_names();
    std::string scratch;
    for (auto _ : state) {
        for (const std::string& name : names) {
            http_variable_name(name, scratch);
            zend_string* key = zend_string_init(scratch.data(), scratch.size(), 1);
            benchmark::DoNotOptimize(zend_string_hash_val(key));
            zend_string_free(key);
        }
    }
    state.SetItemsProcessed(state.iterations() * names.size());
}
BENCHMARK(BM_header_key_uncached);

// Takes --env-vars=N and --variables-order=X out of argv.
struct options {
    int env_vars = 10;
    std::string variables_order = "EGPCS";
};

options take_options(int& argc, char** argv) {
    options result;
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        std::string_view arg(argv[i]);
        if (arg.starts_with("--env-vars=")) {
            result.env_vars = std::atoi(argv[i] + std::strlen("--env-vars="));
        } else if (arg.starts_with("--variables-order=")) {
            result.variables_order = std::string(arg.substr(std::strlen("--variables-order=")));
        } else {
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    return result;
}

}  // namespace

int main(int argc, char** argv) {
    options opts = take_options(argc, argv);
    // The engine logs through these loggers; only warnings and errors are shown.
    auto log = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    for (const char* name : {"sapi", "php", "worker"}) {
        auto logger = std::make_shared<spdlog::logger>(name, log);
        logger->set_level(spdlog::level::warn);
        spdlog::register_logger(logger);
    }
    // About 40 characters each: "BENCH_VAR_0042=value-of-benchmark-var-0042".
    for (int i = 0; i < opts.env_vars; ++i) {
        std::string number = std::to_string(10000 + i).substr(1);
        setenv(("BENCH_VAR_" + number).c_str(), ("value-of-benchmark-var-" + number).c_str(), 1);
    }

    engine_options engine_opts;
    engine_opts.num_slots = 1;
    engine_opts.ini_overrides = {{"variables_order", opts.variables_order}};
    engine php(engine_opts);
    bench_engine = &php;
    worker_file = (std::filesystem::temp_directory_path() /
                   ("spindle-micro-bench-worker-" + std::to_string(getpid()) + ".php"))
                      .string();
    std::ofstream(worker_file) << "<?php\n"
                                  "$handler = static function (): void {\n"
                                  "    $uri = $_SERVER['REQUEST_URI'];\n"
                                  "};\n"
                                  "while (frankenphp_handle_request($handler)) {\n"
                                  "}\n";

    int environment_size = 0;
    for (char** env = environ; *env != nullptr; ++env) {
        ++environment_size;
    }
    benchmark::AddCustomContext("environment_variables", std::to_string(environment_size));
    benchmark::AddCustomContext("variables_order", opts.variables_order);

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
        return 1;
    }
    // The benchmarks run on a slot thread of their own, as requests do: the engine's start-up
    // and shutdown belong to this (control) thread, whose PHP context must outlive the slot's.
    std::thread slot_thread([&php] {
        engine::thread_scope scope(php, 0);
        benchmark::RunSpecifiedBenchmarks();
    });
    slot_thread.join();
    std::filesystem::remove(worker_file);
    benchmark::Shutdown();
    return 0;
}
