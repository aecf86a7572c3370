// spindle: the process entry point (control thread). Parses the command line, starts the PHP
// engine, the slot pool and the HTTP front end, and tears them down in reverse order.

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <system_error>
#include <thread>

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
#include "server/access_log.hpp"
#include "server/cgroup_limits.hpp"
#include "server/http_server.hpp"
#include "server/local_certificate.hpp"
#include "server/memory_allocator.hpp"
#include "server/systemd_notifier.hpp"
#include "worker/classic_runtime.hpp"
#include "worker/pool.hpp"
#include "worker/worker_runtime.hpp"

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

// The routers of a site's `root /path/* DIR` lines: the site's options with another root, the
// longest pattern first (the most specific wins, as in Caddy). A symlink under any of the site's
// roots may lead into the others.
std::vector<server::path_router> path_routers(const config::site_config& site,
                                              const server::router_options& site_router) {
    std::vector<server::path_router> routers;
    for (const config::path_root& entry : site.path_roots) {
        server::path_router router{entry.match, site_router};
        router.options.root = entry.root;
        router.options.document_root.clear();
        router.options.other_roots.push_back(site.root);
        for (const config::path_root& other : site.path_roots) {
            if (other.root != entry.root) {
                router.options.other_roots.push_back(other.root);
            }
        }
        routers.push_back(std::move(router));
    }
    std::stable_sort(routers.begin(), routers.end(),
                     [](const auto& a, const auto& b) { return a.match.size() > b.match.size(); });
    return routers;
}

// "console" lines for people, "json" lines for log collectors.
std::unique_ptr<spdlog::formatter> log_formatter(const std::string& format) {
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    if (format == "json") {
        formatter->add_flag<json_message_flag>('*');
        formatter->add_flag<sapi::log_fields_flag>('&', true);
        formatter->set_pattern(
            R"({"time":"%Y-%m-%dT%H:%M:%S.%e%z","level":"%l","logger":"%n","msg":"%*"%&})");
    } else {
        formatter->add_flag<sapi::log_fields_flag>('&', false);
        formatter->set_pattern("%Y-%m-%d %H:%M:%S.%e %-5l [%n] %v%&");
    }
    return formatter;
}

// One stderr sink shared by a logger per folder.
void setup_logging(const std::string& level, const std::string& format) {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    for (const char* name : {"server", "worker", "sapi", "php", "config", "access", "acme"}) {
        auto logger = std::make_shared<spdlog::logger>(name, sink);
        logger->set_formatter(log_formatter(format));
        logger->set_level(spdlog::level::from_str(level));
        logger->flush_on(spdlog::level::trace);
        spdlog::register_logger(logger);
    }
}

// The access logger of a site whose `log` names an output of its own (server::log_access
// finds it by the site's name); the default, stderr in the server's format, needs none.
// Control thread, before anything is served. Throws when the file cannot be opened.
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
    auto logger = std::make_shared<spdlog::logger>(server::access_logger_name(site_name), sink);
    logger->set_formatter(log_formatter(output.format));
    logger->set_level(spdlog::level::info);
    logger->flush_on(spdlog::level::info);
    spdlog::register_logger(logger);
}

// The pool group layout and each site's routing, from a resolved configuration: group 0 runs
// classic scripts, then one group per worker (global workers first).
struct assembly {
    worker::classic_runtime classic;
    std::vector<std::unique_ptr<worker::worker_runtime>> worker_runtimes;
    worker::pool_options pool_options;
    std::vector<server::site_context> sites;

    assembly(sapi::engine& engine, const config::server_config& config)
        : classic(engine, {config.max_requests, config.max_memory}) {
        std::size_t worker_threads = 0;
        pool_options.max_queue = config.max_queue;
        pool_options.groups.push_back({"classic", 0, &classic});
        auto add_worker = [&](const config::worker_config& w, const std::string& root,
                              std::vector<std::vector<std::pair<std::string, std::string>>> env) {
            env.push_back(w.env);
            const std::string script_name = config::script_name_under(w.file, root);
            sapi::worker_script script{w.name, w.file, root, script_name,
                                       engine.add_environment(env)};
            worker_runtimes.push_back(std::make_unique<worker::worker_runtime>(
                engine, std::move(script),
                worker::worker_policy{{w.max_requests, w.max_memory}, w.max_consecutive_failures}));
            pool_options.groups.push_back({w.name, w.num, worker_runtimes.back().get()});
            worker_threads += w.num;
            // A request `match`ed to a worker outside the root has no URL path of its own:
            // SCRIPT_NAME, PHP_SELF and DOCUMENT_URI are empty, as FrankenPHP leaves them.
            return server::worker_route{
                w.file, config::is_under_root(w.file, root) ? script_name : std::string(), w.match,
                pool_options.groups.size() - 1};
        };
        // Global workers boot in the first site's root, as FrankenPHP's do in Caddy's.
        std::vector<server::worker_route> global_routes;
        for (const config::worker_config& w : config.workers) {
            global_routes.push_back(add_worker(w, config.sites.front().root, {}));
        }
        for (const config::site_config& site : config.sites) {
            server::site_context context;
            context.name =
                site.hosts.empty() ? config::to_string(site.listen.front()) : site.hosts.front();
            context.hosts = site.hosts;
            context.router = {site.root,      site.index, site.file_server,    site.php,
                              site.try_files, site.split, site.follow_symlinks};
            if (site.document_root != site.root) {
                context.router.document_root = site.document_root;
            }
            context.path_routers = path_routers(site, context.router);
            for (const server::path_router& router : context.path_routers) {
                context.router.other_roots.push_back(router.options.root);
            }
            for (const config::worker_config& w : site.workers) {
                context.workers.push_back(add_worker(w, site.root, {site.env}));
            }
            context.workers.insert(context.workers.end(), global_routes.begin(),
                                   global_routes.end());
            for (const server::worker_route& route : context.workers) {
                context.has_match = context.has_match || !route.match.empty();
                server::add_resident(context.router, route.file);
                for (server::path_router& router : context.path_routers) {
                    server::add_resident(router.options, route.file);
                }
            }
            context.headers = site.headers;
            context.responds = site.responds;
            context.respond_after_php = site.respond_after_php;
            context.x_sendfile = site.x_sendfile;
            context.env_index = site.env.empty() ? 0 : engine.add_environment({site.env});
            context.access_log = site.access_log;
            if (site.access_log) {
                add_access_logger(context.name, site.access_log_to);
            }
            if (site.encode) {
                context.encode.emplace(*site.encode);
            }
            sites.push_back(std::move(context));
        }
        pool_options.groups.front().num_threads = config.num_threads - worker_threads;
    }
};

// The CPUs that thread defaults derive from: the cgroup's CPU quota (a container, CPUQuota=)
// caps the machine's count.
std::size_t default_cpus(const server::cgroup_limits& limits) {
    return server::available_cpus(std::thread::hardware_concurrency(), limits);
}

int serve(config::server_config& config) {
    const server::cgroup_limits limits = server::current_cgroup_limits();
    const std::size_t cpus = default_cpus(limits);
    config::resolve_config(config, cpus);
    if (config.io_threads == 0) {
        config.io_threads = std::max<std::size_t>(1, cpus / 2);
    }

    // SIGPIPE would kill the process when PHP writes to a closed pipe or socket (fsockopen).
    std::signal(SIGPIPE, SIG_IGN);
    // Past a file size limit (RLIMIT_FSIZE) a write fails with EFBIG instead of killing the
    // process: a body spill that cannot grow is one request's 500, like a full disk.
    std::signal(SIGXFSZ, SIG_IGN);
    // Before the engine imports the environment: scripts never see NOTIFY_SOCKET.
    const server::systemd_notifier notifier = server::systemd_notifier::from_environment();
    sapi::engine engine(
        sapi::engine_options{config.num_threads, config.php_ini_file, config.php_ini, config.env});
    if (auto warning = server::memory_warning(config.num_threads, engine.memory_limit(), limits)) {
        spdlog::get("server")->warn("{}", *warning);
    }
    assembly parts(engine, config);
    const std::size_t classic_threads = parts.pool_options.groups.front().num_threads;
    worker::pool pool(std::move(parts.pool_options));
    // Binds every address now: a port in use fails here, before anything is served.
    server::http_server server(config, std::move(parts.sites), pool, notifier);
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
        "{} PHP threads ({} in workers), {} I/O threads, {} CPUs{}, malloc from {}",
        config.num_threads, config.num_threads - classic_threads, config.io_threads, cpus,
        limits.cpus ? fmt::format(" (cgroup CPU quota {:g})", *limits.cpus) : "",
        server::malloc_library());
    server.serve();
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
    config::command_line command;
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
            case config::command_kind::run: command.config = load(command, true); break;
            case config::command_kind::php_server: break;
        }
    } catch (const config::config_error& e) {
        std::fprintf(stderr, "spindle: %s\n", e.what());
        return 2;
    } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "spindle: %s\n", e.what());
        return 1;
    }
    setup_logging(command.config.log_level, command.config.log_format);
    try {
        return serve(command.config);
    } catch (const config::config_error& e) {
        spdlog::get("config")->error("{}", e.what());
        return 2;
    } catch (const std::exception& e) {
        spdlog::get("server")->error("{}", e.what());
        return 1;
    }
}
