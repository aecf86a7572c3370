// spindle: the process entry point (control thread). Parses the command line, starts the PHP
// engine, the slot pool and the HTTP front end, and tears them down in reverse order.

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <system_error>
#include <thread>

#include <sys/prctl.h>
#include <unistd.h>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "config/command_line.hpp"
#include "config/config_error.hpp"
#include "config/config_file.hpp"
#include "config/json_config.hpp"
#include "config/resolve_config.hpp"
#include "sapi/engine.hpp"
#include "sapi/php_cli.hpp"
#include "sapi/structured_log.hpp"
#include "server/http/access_log.hpp"
#include "server/process/cgroup_limits.hpp"
#include "server/process/crash_report.hpp"
#include "server/process/http_server.hpp"
#include "server/process/memory_allocator.hpp"
#include "server/process/reload_client.hpp"
#include "server/process/server_process_role.hpp"
#include "server/process/supervisor.hpp"
#include "server/process/systemd_notifier.hpp"
#include "server/routing/snapshot_builder.hpp"
#include "server/tls/local_certificate.hpp"
#include "worker/classic_runtime.hpp"
#include "worker/pool.hpp"
#include "worker/slow_request_watch.hpp"

namespace {

using namespace spindle;

// The message as a JSON string body, for --log-format json / log { format json }.
class json_message_flag : public spdlog::custom_flag_formatter {
  public:
    void format(const spdlog::details::log_msg& msg, const std::tm&,
                spdlog::memory_buf_t& dest) override {
        static constexpr char hex[] = "0123456789abcdef";
        for (const char c : std::string_view(msg.payload.data(), msg.payload.size())) {
            const auto byte = static_cast<unsigned char>(c);
            if (c == '"' || c == '\\') {
                dest.push_back('\\');
                dest.push_back(c);
            } else if (byte < 0x20) {
                for (const char e : {'\\', 'u', '0', '0', hex[byte >> 4], hex[byte & 15]}) {
                    dest.push_back(e);
                }
            } else {
                dest.push_back(c);
            }
        }
    }
    std::unique_ptr<custom_flag_formatter> clone() const override {
        return std::make_unique<json_message_flag>();
    }
};

// How long the threads of interrupted requests get to unwind at the end of a stop: PHP's own
// hard_timeout after max_execution_time is 2 s.
constexpr std::chrono::milliseconds interrupted_thread_limit{5'000};

// "console" lines for people, "json" lines for log collectors. `process` (1..N) marks the
// lines of a supervisor's server process (processes N): " (process 2)", "process":2.
std::unique_ptr<spdlog::formatter> log_formatter(const std::string& format,
                                                 std::size_t process = 0) {
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    const std::string index = std::to_string(process);
    if (format == "json") {
        formatter->add_flag<json_message_flag>('*');
        formatter->add_flag<sapi::log_fields_flag>('&', true);
        formatter->set_pattern(
            R"({"time":"%Y-%m-%dT%H:%M:%S.%e%z","level":"%l","logger":"%n","msg":"%*"%&)" +
            (process != 0 ? R"(,"process":)" + index : "") + "}");
    } else {
        formatter->add_flag<sapi::log_fields_flag>('&', false);
        formatter->set_pattern("%Y-%m-%d %H:%M:%S.%e %-5l [%n] %v%&" +
                               (process != 0 ? " (process " + index + ")" : std::string()));
    }
    return formatter;
}

// One stderr sink shared by a logger per folder.
void setup_logging(const std::string& level, const std::string& format, std::size_t process) {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    for (const char* name : {"server", "worker", "sapi", "php", "config", "access", "acme"}) {
        auto logger = std::make_shared<spdlog::logger>(name, sink);
        logger->set_formatter(log_formatter(format, process));
        logger->set_level(spdlog::level::from_str(level));
        logger->flush_on(spdlog::level::trace);
        spdlog::register_logger(logger);
    }
}

// The access logger of a site whose `log` names an output of its own (server::log_access
// finds it by the site's name); the default, stderr in the server's format, needs none.
// Control thread before anything is served, then the reload thread. Throws when the file
// cannot be opened.
void add_access_logger(const std::string& site_name, const config::access_log_output& output) {
    using destination = config::access_log_output::destination;
    if (output.to == destination::standard_error && output.format == "console") {
        return;
    }
    spdlog::sink_ptr sink;
    if (output.to == destination::standard_output) {
        sink = std::make_shared<spdlog::sinks::stdout_sink_mt>();
    } else if (output.to == destination::standard_error) {
        sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    } else if (output.roll) {
        // FILE.log, then FILE.1.log (newest) ... FILE.<roll_keep>.log once it would grow past
        // roll_size, as Caddy's roll_size and roll_keep ask.
        sink = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
            output.file, static_cast<std::size_t>(output.roll_size), output.roll_keep);
    } else {
        sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(output.file);
    }
    // A reload opens the site's log again (its output may have changed).
    spdlog::drop(server::access_logger_name(site_name));
    auto logger = std::make_shared<spdlog::logger>(server::access_logger_name(site_name), sink);
    logger->set_formatter(log_formatter(output.format));
    logger->set_level(spdlog::level::info);
    logger->flush_on(spdlog::level::info);
    spdlog::register_logger(logger);
}

// Slots for up to `max_threads` PHP threads: twice as many (and a few more), so that a new
// generation of every worker can boot (and grow) while its old one still serves.
std::size_t slot_capacity(std::size_t max_threads) {
    return 2 * max_threads + 16;
}

// The CPUs that thread defaults derive from: the cgroup's CPU quota (a container, CPUQuota=)
// caps the machine's count.
std::size_t default_cpus(const server::cgroup_limits& limits) {
    return server::available_cpus(std::thread::hardware_concurrency(), limits);
}

int serve(config::server_config& config, const config::command_line& command,
          nlohmann::json document, std::optional<server::server_process_role> role) {
    const config::server_config source = config;
    const server::cgroup_limits limits = server::current_cgroup_limits();
    const std::size_t cpus = default_cpus(limits);
    config::resolve_config(config, cpus);

    // SIGPIPE would kill the process when PHP writes to a closed pipe or socket (fsockopen).
    std::signal(SIGPIPE, SIG_IGN);
    // Past a file size limit (RLIMIT_FSIZE) a write fails with EFBIG instead of killing the
    // process: a body spill that cannot grow is one request's 500, like a full disk.
    std::signal(SIGXFSZ, SIG_IGN);
    // Before the engine imports the environment: scripts never see NOTIFY_SOCKET.
    const server::systemd_notifier notifier = server::systemd_notifier::from_environment();
    // max_threads auto is known once PHP's memory_limit is; the slots are sized before, for
    // the most it can come to.
    const bool automatic = config.max_threads == config::max_threads_auto;
    const std::size_t thread_bound =
        automatic
            ? server::automatic_thread_bound(config.num_threads, server::usable_memory(limits))
            : std::max(config.num_threads, config.max_threads);
    const std::size_t capacity = slot_capacity(thread_bound);
    sapi::engine engine(
        sapi::engine_options{capacity, config.php_ini_file, config.php_ini, config.env});
    const std::size_t max_threads =
        automatic ? server::automatic_max_threads(config.num_threads, engine.memory_limit(),
                                                  server::usable_memory(limits), thread_bound)
                  : thread_bound;
    if (auto warning = server::memory_warning(max_threads, engine.memory_limit(), limits)) {
        spdlog::get("server")->warn("{}", *warning);
    }
    // Group 0 runs classic scripts, then one group per worker (global workers first).
    worker::pool_options pool_options;
    pool_options.max_queue = config.max_queue;
    pool_options.capacity = capacity;
    pool_options.max_threads = max_threads;
    pool_options.max_idle_time = config.max_idle_time;
    pool_options.cpus = cpus;
    // Classic scripts may take every thread the pool may add; a worker's group grows to its
    // own max_threads (snapshot_builder.cpp).
    pool_options.groups.push_back(
        {"classic", 0,
         std::make_shared<worker::classic_runtime>(
             engine, worker::recycle_policy{config.max_requests, config.max_memory}),
         max_threads});
    const server::snapshot_factory factory =
        [&engine, env = config.env](const config::server_config& c,
                                    const std::vector<server::worker_generation>& running,
                                    const std::function<std::size_t(worker::group_options)>& add) {
            return server::build_snapshot(engine, c, running,
                                          server::snapshot_hooks{add, add_access_logger, env});
        };
    server::built_snapshot first =
        factory(config, {}, [&pool_options](worker::group_options options) {
            pool_options.groups.push_back(std::move(options));
            return pool_options.groups.size() - 1;
        });
    first.snapshot->source = source;
    first.snapshot->document = std::move(document);
    std::size_t worker_threads = 0;
    for (std::size_t group = 1; group < pool_options.groups.size(); ++group) {
        worker_threads += pool_options.groups[group].num_threads;
    }
    pool_options.groups.front().num_threads = config.num_threads - worker_threads;
    const std::size_t classic_threads = pool_options.groups.front().num_threads;
    worker::pool pool(std::move(pool_options));
    // A crash from here on lists what the PHP threads were running.
    const server::crash_report_scope crash_report(pool);
    // The slow log (php-fpm's request_slowlog_timeout), when it is on.
    std::optional<worker::slow_request_watch> slow_log;
    if (config.slowlog_timeout.count() > 0) {
        slow_log.emplace(pool, config.slowlog_timeout);
    }
    // SIGHUP reads the file the server was started with again; a server started from flags
    // has no file and applies its own configuration again (roots resolved anew).
    server::config_source reread = [command, source]() {
        if (command.kind != config::command_kind::run) {
            return std::pair<config::server_config, nlohmann::json>{source, nullptr};
        }
        config::loaded_config loaded =
            config::load_config_file(command.config_file, command.adapter);
        for (const std::string& warning : loaded.warnings) {
            spdlog::get("config")->warn("{}", warning);
        }
        config::server_config next =
            config::config_from_json(loaded.document, command.config_file, loaded.sources);
        return std::pair<config::server_config, nlohmann::json>{std::move(next),
                                                                std::move(loaded.document)};
    };
    // Binds every address now: a port in use fails here, before anything is served.
    server::http_server server(first.snapshot, pool, std::move(reread), factory, notifier,
                               std::move(role));
    // The admin endpoint answers while the PHP threads boot (readyz says 503 meanwhile).
    server.start();
    if (!pool.start()) {
        spdlog::get("server")->info("stopped before every PHP thread had booted");
        return 0;
    }
    for (const config::site_config& site : config.sites) {
        spdlog::get("server")->info("serving {}{}", site.root,
                                    site.hosts.empty() ? "" : " for " + site.hosts.front());
    }
    spdlog::get("server")->info(
        "{} PHP threads ({} in workers{}), {} I/O threads, {} CPUs{}, malloc from {}",
        config.num_threads, config.num_threads - classic_threads,
        max_threads > config.num_threads ? fmt::format("; up to {} under load", max_threads) : "",
        config.io_threads, cpus,
        limits.cpus ? fmt::format(" (cgroup CPU quota {:g})", *limits.cpus) : "",
        server::malloc_library());
    server.serve();
    // Nothing asks the PHP threads for backtraces while they end.
    slow_log.reset();
    // Requests still running now (the grace period is over, or a second signal came) are
    // interrupted; a thread that cannot be reached is left behind rather than waited for.
    if (!pool.stop_within(interrupted_thread_limit)) {
        spdlog::get("server")->error(
            "stopped with a PHP thread still running; exiting without it (status 1)");
        spdlog::shutdown();
        std::_Exit(1);
    }
    spdlog::get("server")->info("stopped");
    return 0;
}

// `spindle reload`: the file is checked here first, as far as it can be without the server's
// machine view (syntax and values: exit 2 with file:line), then sent to the running server's
// POST /load, which resolves roots and worker files in its own working directory, as it did
// at start, and answers when it applied or refused it (refused as invalid: exit 2 too).
int send_reload(const config::command_line& command) {
    std::ifstream in(command.config_file, std::ios::binary);
    if (!in) {
        throw config::config_error(std::string("cannot read: ") + std::strerror(errno),
                                   command.config_file, 0);
    }
    std::ostringstream text;
    text << in.rdbuf();
    const config::loaded_config loaded =
        config::load_config_text(text.str(), command.config_file, command.adapter);
    for (const std::string& warning : loaded.warnings) {
        std::fprintf(stderr, "spindle: warning: %s\n", warning.c_str());
    }
    const config::server_config checked =
        config::config_from_json(loaded.document, command.config_file, loaded.sources);
    const std::optional<config::listen_address> admin =
        command.admin_address ? command.admin_address : checked.admin;
    if (!admin) {
        throw config::located_error(checked.admin_origin,
                                    "admin is off: give reload the running server's admin "
                                    "endpoint with --address");
    }
    // A worker's new generation may take a while to boot; the server gives up after 60 s.
    const std::string path = std::filesystem::absolute(command.config_file).string();
    const server::admin_answer answer =
        server::post_load(*admin, path, text.str(), command.adapter, 90);
    if (answer.status == 200) {
        std::cout << answer.body;
        return 0;
    }
    std::string error = answer.body;
    try {
        error = nlohmann::json::parse(answer.body).at("error").get<std::string>();
    } catch (const std::exception&) {
        // Not the JSON answer of POST /load (another program on that port): shown as it is.
    }
    std::fprintf(stderr, "spindle: not applied: %s\n", error.c_str());
    return answer.status == 400 ? 2 : 1;
}

}  // namespace

// What run, adapt and validate share: the file turned into a checked model. Warnings (settings
// with no effect) go to stderr before anything else.
config::server_config load(const config::command_line& command, bool print_warnings) {
    const config::loaded_config loaded =
        config::load_config_file(command.config_file, command.adapter);
    if (print_warnings) {
        for (const std::string& warning : loaded.warnings) {
            std::fprintf(stderr, "spindle: warning: %s\n", warning.c_str());
        }
    }
    return config::config_from_json(loaded.document, command.config_file, loaded.sources);
}

int main(int argc, char** argv) {
    // A server process of a supervisor (processes > 1) learns its place and sockets here,
    // before anything reads the environment.
    std::optional<server::server_process_role> role;
    try {
        role = server::server_process_role::take_from_environment();
    } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "spindle: %s\n", e.what());
        return 1;
    }
    if (role) {
        // The supervisor gone (killed), its processes drain and stop rather than serve on
        // unsupervised; checked after the request, in case it went before.
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != role->supervisor) {
            return 1;
        }
    }
    config::command_line command;
    nlohmann::json document;  // run: the configuration as JSON (GET /config)
    try {
        command = config::parse_command_line(argc, argv);
        switch (command.kind) {
            case config::command_kind::help: std::cout << command.help_text; return 0;
            case config::command_kind::version:
                std::cout << "Spindle " SPINDLE_VERSION " (PHP " << sapi::engine::php_version()
                          << ", ZTS, malloc from " << server::malloc_library() << ")\n";
                return 0;
            case config::command_kind::adapt:
                std::cout << config::load_config_file(command.config_file, command.adapter)
                                 .document.dump(2)
                          << "\n";
                return 0;
            case config::command_kind::validate: {
                config::server_config config = load(command, true);
                config::resolve_config(config, default_cpus(server::current_cgroup_limits()));
                std::cout << "valid configuration: " << config.sites.size()
                          << (config.sites.size() == 1 ? " site\n" : " sites\n");
                return 0;
            }
            case config::command_kind::cert: {
                const server::local_certificate_files files =
                    server::write_local_certificate(command.cert_dir, command.cert_hosts);
                std::string hosts;
                for (const std::string& host : command.cert_hosts) {
                    hosts += (hosts.empty() ? "" : ", ") + host;
                }
                std::cout << "wrote a local certificate for " << hosts << " (valid 398 days):\n"
                          << "  " << files.certificate << "  certificate\n"
                          << "  " << files.key << "  private key (mode 0600)\n"
                          << "  " << files.ca_certificate
                          << "  the CA that signed it; its key was not kept\n"
                          << "serve it:  spindle php-server --tls-cert " << files.certificate
                          << " --tls-key " << files.key << "\n"
                          << "trust it:  curl --cacert " << files.ca_certificate
                          << ", or add it to your browser's or system's trust store\n";
                return 0;
            }
            // PHP's own command line: it owns the process and its exit status is the script's.
            case config::command_kind::php_cli: return sapi::run_php_cli(command.php_cli, argv[0]);
            case config::command_kind::reload: return send_reload(command);
            case config::command_kind::run: {
                config::loaded_config loaded =
                    config::load_config_file(command.config_file, command.adapter);
                for (const std::string& warning : loaded.warnings) {
                    std::fprintf(stderr, "spindle: warning: %s\n", warning.c_str());
                }
                command.config =
                    config::config_from_json(loaded.document, command.config_file, loaded.sources);
                document = std::move(loaded.document);
                if (command.processes) {
                    command.config.processes = *command.processes;
                }
                break;
            }
            case config::command_kind::php_server: break;
        }
    } catch (const config::config_error& e) {
        std::fprintf(stderr, "spindle: %s\n", e.what());
        return 2;
    } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "spindle: %s\n", e.what());
        return 1;
    }
    setup_logging(command.config.log_level, command.config.log_format, role ? role->index : 0);
    // A fatal signal (an extension's segfault, an abort()) is reported in the log's format.
    server::install_crash_report(command.config.log_format);
    try {
        if (!role && command.config.processes > 1) {
            return server::run_supervisor(command.config, argv);
        }
        return serve(command.config, command, std::move(document), std::move(role));
    } catch (const config::config_error& e) {
        spdlog::get("config")->error("{}", e.what());
        return 2;
    } catch (const std::exception& e) {
        spdlog::get("server")->error("{}", e.what());
        return 1;
    }
}
