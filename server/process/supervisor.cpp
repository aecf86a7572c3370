#include "server/process/supervisor.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "config/config_error.hpp"
#include "config/json_config.hpp"
#include "config/listen_address.hpp"
#include "server/admin/supervisor_admin.hpp"
#include "server/http1/listener.hpp"
#include "server/http1/unix_socket.hpp"
#include "server/process/restart_throttle.hpp"
#include "server/process/server_process_role.hpp"

extern char** environ;

namespace spindle::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

// How often the supervisor looks at processes that have not answered /readyz yet.
constexpr std::chrono::milliseconds poll_interval{50};

// Why the sockets are inherited rather than bound again by each process with SO_REUSEPORT:
// with SO_REUSEPORT every process has its own accept queue, and the connections waiting in a
// dead process's queue are reset with it, although no request of theirs had started; the
// supervisor would also have to keep a socket of its own from taking a share. One socket
// inherited by every process keeps one queue: a connection waits there until a living process
// accepts it, so a crash loses only what the dead process had accepted. Port 0 also stays one
// port for all.

// "SIGSEGV (Segmentation fault)" for the log line of a process's death.
std::string signal_name(int signal) {
    const char* abbreviation = sigabbrev_np(signal);
    const char* description = strsignal(signal);
    return std::string(abbreviation ? std::string("SIG") + abbreviation
                                    : "signal " + std::to_string(signal)) +
           " (" + (description ? description : "unknown") + ")";
}

std::string describe_status(int status) {
    if (WIFSIGNALED(status)) {
        return "killed by " + signal_name(WTERMSIG(status)) +
               (WCOREDUMP(status) ? ", core dumped" : "");
    }
    return "exited with status " + std::to_string(WEXITSTATUS(status));
}

// One place of the N: the process running there now, if any.
struct process_place {
    std::size_t index = 0;
    pid_t pid = 0;
    bool ready = false;
    std::size_t deaths = 0;
    std::string admin_path;
};

// The listening sockets the supervisor holds for its processes: TCP acceptors (never
// accepting here) and Unix sockets with their files.
struct held_sockets {
    net::io_context ioc;
    std::vector<std::unique_ptr<tcp::acceptor>> acceptors;
    std::vector<unix_listening_socket> unix_sockets;
    std::vector<std::pair<std::string, int>> by_address;

    ~held_sockets() {
        for (const unix_listening_socket& socket : unix_sockets) {
            remove_unix_socket(socket);
            ::close(socket.fd);
        }
    }
};

// Every distinct address of the sites (their listen and redirect_to_https addresses), in the
// order http_server opens them (snapshot_builder.cpp).
void open_site_sockets(const config::server_config& config, held_sockets& held) {
    for (const config::site_config& site : config.sites) {
        for (const auto* list : {&site.listen, &site.redirect_to_https}) {
            for (const config::listen_address& address : *list) {
                const std::string key = config::to_string(address);
                if (std::any_of(held.by_address.begin(), held.by_address.end(),
                                [&](const auto& entry) { return entry.first == key; })) {
                    continue;
                }
                try {
                    if (!address.unix_path.empty()) {
                        held.unix_sockets.push_back(
                            open_unix_listener(address.unix_path, address.unix_mode));
                        held.by_address.emplace_back(key, held.unix_sockets.back().fd);
                    } else {
                        auto acceptor = std::make_unique<tcp::acceptor>(held.ioc);
                        open_acceptor(*acceptor, resolve_endpoint(address), "cannot listen on ");
                        held.by_address.emplace_back(key, acceptor->native_handle());
                        held.acceptors.push_back(std::move(acceptor));
                    }
                } catch (const std::system_error& e) {
                    throw config::located_error(site.origin, e.what());
                }
            }
        }
    }
}

class supervisor {
  public:
    supervisor(const config::server_config& config, char** argv)
        : config_(config),
          argv_(argv),
          throttle_(config.emergency_restart_threshold, config.emergency_restart_interval),
          log_(spdlog::get("server")) {}

    ~supervisor() {
        std::error_code ignored;
        if (!directory_.empty()) {
            std::filesystem::remove_all(directory_, ignored);
        }
    }

    int run() {
        // The signals come to sigtimedwait() below, from any thread: blocked before the admin
        // thread starts, so that it inherits the mask.
        sigset_t signals;
        sigemptyset(&signals);
        for (const int s : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGCHLD}) {
            sigaddset(&signals, s);
        }
        pthread_sigmask(SIG_BLOCK, &signals, nullptr);
        std::signal(SIGPIPE, SIG_IGN);

        open_site_sockets(config_, sockets_);
        char pattern[] = "/tmp/spindle-supervisor-XXXXXX";
        if (::mkdtemp(pattern) == nullptr) {
            throw std::system_error(errno, std::generic_category(),
                                    "cannot make the folder of the processes' admin sockets");
        }
        directory_ = pattern;
        for (std::size_t i = 1; i <= config_.processes; ++i) {
            places_.push_back({i, 0, false, 0, directory_ + "/process-" + std::to_string(i)});
        }
        if (config_.admin) {
            try {
                admin_ = std::make_unique<supervisor_admin>(resolve_endpoint(*config_.admin),
                                                            [this] { return view(); });
            } catch (const std::system_error& e) {
                throw config::located_error(
                    config_.admin_origin,
                    std::string(e.what()) + " (set admin to another address, or off)");
            }
            const tcp::endpoint endpoint = admin_->local_endpoint();
            const std::string host = endpoint.address().to_string();
            log_->info("admin endpoint on http://{}:{} (every process)",
                       endpoint.address().is_v6() ? "[" + host + "]" : host, endpoint.port());
            admin_->start();
        }
        log_->info(
            "supervisor (pid {}) starting {} server processes; restarts stop after {} "
            "deaths within {} ms",
            ::getpid(), config_.processes, config_.emergency_restart_threshold,
            config_.emergency_restart_interval.count());
        for (process_place& place : places_) {
            spawn(place);
        }
        return loop(signals);
    }

  private:
    std::vector<process_view> view() {
        std::lock_guard lock(mutex_);
        std::vector<process_view> out;
        for (const process_place& p : places_) {
            out.push_back({p.index, p.pid, p.ready, p.deaths, p.admin_path});
        }
        return out;
    }

    // Starts the binary again with the same command line and the role of `place`. Control
    // thread.
    void spawn(process_place& place) {
        server_process_role role;
        role.index = place.index;
        role.supervisor = ::getpid();
        role.admin_path = place.admin_path;
        role.sockets = sockets_.by_address;
        std::vector<std::string> environment = role.environment();
        for (char** entry = environ; *entry != nullptr; ++entry) {
            environment.emplace_back(*entry);
        }
        std::vector<char*> envp;
        for (std::string& entry : environment) {
            envp.push_back(entry.data());
        }
        envp.push_back(nullptr);

        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        // dup2 onto itself clears close-on-exec in the child (POSIX 2024, glibc 2.29).
        for (const auto& [address, fd] : sockets_.by_address) {
            posix_spawn_file_actions_adddup2(&actions, fd, fd);
        }
        posix_spawnattr_t attributes;
        posix_spawnattr_init(&attributes);
        sigset_t none;
        sigemptyset(&none);
        sigset_t defaults;
        sigemptyset(&defaults);
        for (const int s : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGCHLD, SIGPIPE}) {
            sigaddset(&defaults, s);
        }
        posix_spawnattr_setsigmask(&attributes, &none);
        posix_spawnattr_setsigdefault(&attributes, &defaults);
        // A process group of its own: Ctrl-C in a terminal (SIGINT to the foreground group)
        // reaches the supervisor alone, which passes it on once; a second SIGINT would make
        // a process stop at once instead of draining.
        posix_spawnattr_setpgroup(&attributes, 0);
        posix_spawnattr_setflags(
            &attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
        pid_t pid = 0;
        const int error =
            posix_spawn(&pid, "/proc/self/exe", &actions, &attributes, argv_, envp.data());
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attributes);
        if (error != 0) {
            log_->error("cannot start server process {}: {}; it stays down", place.index,
                        std::strerror(error));
            return;
        }
        std::lock_guard lock(mutex_);
        place.pid = pid;
        place.ready = false;
        log_->info("process {} started (pid {})", place.index, pid);
    }

    void forward(int signal) {
        std::lock_guard lock(mutex_);
        for (const process_place& place : places_) {
            if (place.pid != 0) {
                ::kill(place.pid, signal);
            }
        }
    }

    std::size_t live() {
        std::lock_guard lock(mutex_);
        return static_cast<std::size_t>(std::count_if(
            places_.begin(), places_.end(), [](const process_place& p) { return p.pid != 0; }));
    }

    // A process ended: log it, and start another in its place unless the supervisor stops or
    // gave up. Control thread.
    void on_exit(process_place& place, int status) {
        bool was_ready = false;
        pid_t pid = 0;
        {
            std::lock_guard lock(mutex_);
            was_ready = place.ready;
            pid = place.pid;
            place.pid = 0;
            place.ready = false;
        }
        const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (stopping_) {
            if (clean) {
                log_->info("process {} (pid {}) {}", place.index, pid, describe_status(status));
            } else {
                log_->error("process {} (pid {}) {} while stopping", place.index, pid,
                            describe_status(status));
            }
            clean_ = clean_ && clean;
            return;
        }
        {
            std::lock_guard lock(mutex_);
            ++place.deaths;
        }
        if (WIFEXITED(status) && !was_ready && !ever_ready_) {
            // Its configuration cannot start (a worker script that fails, a bad root): the
            // others would fail the same way, and restarting would only repeat it.
            log_->error("process {} (pid {}) {} before it was ready: stopping every process",
                        place.index, pid, describe_status(status));
            exit_status_ = WEXITSTATUS(status) != 0 ? WEXITSTATUS(status) : 1;
            stop(SIGTERM);
            return;
        }
        const restart_state state = throttle_.on_death(std::chrono::steady_clock::now());
        log_->error("process {} (pid {}) {}; its in-flight requests were lost", place.index, pid,
                    describe_status(status));
        if (state == restart_state::given_up) {
            if (!gave_up_) {
                gave_up_ = true;
                log_->critical(
                    "{} process deaths within {} ms reached emergency_restart_threshold: "
                    "no more restarts; serving with the {} processes left. Read the "
                    "crash reports above, fix the cause, then restart the server",
                    throttle_.deaths_in_window(), throttle_.interval().count(), live());
            }
            if (live() == 0) {
                log_->critical("no server process left: exiting (status 1)");
                exit_status_ = 1;
                stopping_ = true;
            }
            return;
        }
        spawn(place);
    }

    void stop(int signal) {
        if (!stopping_) {
            log_->info("{}: stopping {} server processes", signal_name(signal), live());
        }
        stopping_ = true;
        forward(signal);
    }

    // Asks each process that has not said so yet whether it is ready (its /readyz).
    void poll_readiness() {
        for (process_view& p : view()) {
            if (p.pid == 0 || p.ready) {
                continue;
            }
            const std::optional<process_answer> answer =
                query_process(p.admin_path, process_query{"GET", "/readyz", {}, {}}, poll_interval);
            if (!answer || answer->status != 200) {
                continue;
            }
            std::lock_guard lock(mutex_);
            process_place& place = places_[p.index - 1];
            if (place.pid == p.pid) {
                place.ready = true;
                if (ever_ready_) {
                    log_->info("process {} (pid {}) ready", place.index, place.pid);
                }
            }
        }
        if (!ever_ready_) {
            const std::vector<process_view> all = view();
            if (std::all_of(all.begin(), all.end(),
                            [](const process_view& p) { return p.ready; })) {
                ever_ready_ = true;
                log_->info("{} server processes ready", all.size());
            }
        }
    }

    int loop(const sigset_t& signals) {
        const timespec wait{0, static_cast<long>(poll_interval.count()) * 1'000'000};
        while (true) {
            siginfo_t info;
            const int signal = sigtimedwait(&signals, &info, &wait);
            if (signal == SIGTERM || signal == SIGINT) {
                stop(signal);
            } else if (signal == SIGHUP || signal == SIGUSR1) {
                log_->info("{}: passed to every server process", signal_name(signal));
                forward(signal);
            }
            int status = 0;
            for (pid_t pid; (pid = ::waitpid(-1, &status, WNOHANG)) > 0;) {
                for (process_place& place : places_) {
                    if (place.pid == pid) {
                        on_exit(place, status);
                    }
                }
            }
            if (stopping_ && live() == 0) {
                break;
            }
            if (!stopping_) {
                poll_readiness();
            }
        }
        if (exit_status_ != 0) {
            return exit_status_;
        }
        return clean_ ? 0 : 1;
    }

    const config::server_config& config_;
    char** argv_;
    restart_throttle throttle_;
    std::shared_ptr<spdlog::logger> log_;
    held_sockets sockets_;
    std::string directory_;  ///< the processes' admin sockets
    /// Guards places_' pid and ready between the control thread and the admin thread.
    std::mutex mutex_;
    std::vector<process_place> places_;
    bool stopping_ = false;    ///< control thread
    bool ever_ready_ = false;  ///< every process was ready once
    bool gave_up_ = false;
    bool clean_ = true;  ///< every process stopped with status 0
    int exit_status_ = 0;
    /// Last: its thread reads places_ under mutex_, so it is joined before they go.
    std::unique_ptr<supervisor_admin> admin_;
};

}  // namespace

int run_supervisor(const config::server_config& config, char** argv) {
    supervisor s(config, argv);
    return s.run();
}

}  // namespace spindle::server
