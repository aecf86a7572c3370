// spindle: the process entry point (control thread). Parses the command line, starts the PHP
// engine, the slot pool and the HTTP front end, and tears them down in reverse order.

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <system_error>
#include <thread>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "config/command_line.hpp"
#include "config/config_error.hpp"
#include "sapi/engine.hpp"
#include "server/http_server.hpp"
#include "worker/classic_runtime.hpp"
#include "worker/pool.hpp"
#include "worker/worker_runtime.hpp"

namespace {

using namespace spindle;

// One stderr sink shared by a logger per folder.
void setup_logging(const std::string& level) {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    for (const char* name : {"server", "worker", "sapi", "php", "config"}) {
        auto logger = std::make_shared<spdlog::logger>(name, sink);
        logger->set_pattern("%Y-%m-%d %H:%M:%S.%e %-5l [%n] %v");
        logger->set_level(spdlog::level::from_str(level));
        logger->flush_on(spdlog::level::trace);
        spdlog::register_logger(logger);
    }
}

// A worker file given relative: to the current directory if it exists there, else to the
// root. Throws config_error naming it when it exists in neither.
std::filesystem::path resolve_worker_file(const std::string& file,
                                          const std::filesystem::path& root) {
    std::error_code ec;
    for (const auto& candidate : {std::filesystem::path(file), root / file}) {
        auto resolved = std::filesystem::canonical(candidate, ec);
        if (!ec && std::filesystem::is_regular_file(resolved)) {
            return resolved;
        }
        if (std::filesystem::path(file).is_absolute()) {
            break;
        }
    }
    throw config::config_error("worker file " + file + " does not exist");
}

// The script's URL path: its place under the root, or its name when it lives elsewhere.
std::string script_name_under(const std::filesystem::path& file,
                              const std::filesystem::path& root) {
    auto relative = file.lexically_relative(root);
    if (relative.empty() || *relative.begin() == "..") {
        return "/" + file.filename().string();
    }
    return "/" + relative.string();
}

int run_php_server(config::server_config& config) {
    std::error_code ec;
    auto root = std::filesystem::canonical(config.root, ec);
    if (ec || !std::filesystem::is_directory(root)) {
        spdlog::get("config")->error("document root {} is not a readable directory", config.root);
        return 1;
    }

    // Thread budget: worker threads come out of the pool, and at least one thread stays for
    // classic scripts (every .php that is not a worker).
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    std::size_t worker_threads = 0;
    for (auto& w : config.workers) {
        w.file = resolve_worker_file(w.file, root).string();
        if (w.name.empty()) {
            w.name = script_name_under(w.file, root);
        }
        if (w.num == 0) {
            w.num = 2 * cores;
        }
        worker_threads += w.num;
    }
    if (config.num_threads == 0) {
        config.num_threads = std::max(2 * cores, worker_threads + 1);
    } else if (config.num_threads < worker_threads + 1) {
        throw config::config_error("--threads " + std::to_string(config.num_threads) +
                                   " leaves no thread for classic scripts: the workers take " +
                                   std::to_string(worker_threads) + "; give at least " +
                                   std::to_string(worker_threads + 1));
    }

    // SIGPIPE would kill the process when PHP writes to a closed pipe or socket (fsockopen).
    std::signal(SIGPIPE, SIG_IGN);
    sapi::engine engine(
        sapi::engine_options{config.num_threads, config.php_ini_file, config.php_ini, config.env});

    // Group 0 runs classic scripts; each worker gets its own group after it.
    worker::classic_runtime classic(engine);
    std::vector<std::unique_ptr<worker::worker_runtime>> worker_runtimes;
    worker::pool_options pool_options{{{"classic", config.num_threads - worker_threads, &classic}},
                                      config.max_queue};
    std::vector<server::worker_route> routes;
    for (const auto& w : config.workers) {
        sapi::worker_script script{w.name, w.file, root.string(), script_name_under(w.file, root),
                                   engine.add_worker_environment(w.env)};
        worker_runtimes.push_back(std::make_unique<worker::worker_runtime>(
            engine, std::move(script),
            worker::worker_policy{w.max_requests, w.max_consecutive_failures}));
        routes.push_back({w.file, pool_options.groups.size()});
        pool_options.groups.push_back({w.name, w.num, worker_runtimes.back().get()});
    }
    worker::pool pool(std::move(pool_options));
    // Binds every address now: a port in use fails here, before anything is served.
    server::http_server server(config, root.string(), pool, std::move(routes));
    pool.start();
    spdlog::get("server")->info("serving {} with {} PHP threads ({} in workers)", root.string(),
                                config.num_threads, worker_threads);
    server.run();
    pool.stop();
    spdlog::get("server")->info("stopped");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    config::command_line command;
    try {
        command = config::parse_command_line(argc, argv);
    } catch (const config::config_error& e) {
        std::fprintf(stderr, "spindle: %s\n", e.what());
        return 2;
    }
    switch (command.kind) {
        case config::command_kind::help: std::cout << command.help_text; return 0;
        case config::command_kind::version:
            std::cout << "Spindle " SPINDLE_VERSION " (PHP " << sapi::engine::php_version()
                      << ", ZTS)\n";
            return 0;
        case config::command_kind::php_server: break;
    }
    setup_logging(command.config.log_level);
    try {
        return run_php_server(command.config);
    } catch (const config::config_error& e) {
        spdlog::get("config")->error("{}", e.what());
        return 2;
    } catch (const std::exception& e) {
        spdlog::get("server")->error("{}", e.what());
        return 1;
    }
}
