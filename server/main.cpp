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

int run_php_server(config::server_config& config) {
    std::error_code ec;
    auto root = std::filesystem::canonical(config.root, ec);
    if (ec || !std::filesystem::is_directory(root)) {
        spdlog::get("config")->error("document root {} is not a readable directory", config.root);
        return 1;
    }
    if (config.num_threads == 0) {
        config.num_threads = 2 * std::max(1u, std::thread::hardware_concurrency());
    }

    // Bind first: a port in use must fail before PHP starts, and before anything is served.
    // SIGPIPE would kill the process when PHP writes to a closed pipe or socket (fsockopen).
    std::signal(SIGPIPE, SIG_IGN);
    sapi::engine engine(
        sapi::engine_options{config.num_threads, config.php_ini_file, config.php_ini});
    worker::classic_runtime runtime(engine);
    worker::pool pool(runtime, worker::pool_options{config.num_threads, config.max_queue});
    server::http_server server(config, root.string(), pool);
    pool.start();
    spdlog::get("server")->info("serving {} with {} PHP threads", root.string(),
                                config.num_threads);
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
    } catch (const std::exception& e) {
        spdlog::get("server")->error("{}", e.what());
        return 1;
    }
}
