#include "server/admin/admin_views.hpp"

#include <chrono>
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "acme/certificate_manager.hpp"
#include "sapi/engine.hpp"
#include "server/admin/prometheus_writer.hpp"
#include "worker/pool.hpp"

namespace spindle::server {

namespace {

using metric_type = prometheus_writer::metric_type;

// One group's figures, added up from its slots' atomics.
struct group_figures {
    std::uint64_t total = 0;
    std::uint64_t busy = 0;
    std::uint64_t ready = 0;  ///< reached frankenphp_handle_request(): ready or busy
    /// Running its script, idle or not (booting, ready, busy, draining): FrankenPHP counts a
    /// worker thread busy for as long as its script runs.
    std::uint64_t running = 0;
    std::uint64_t crashes = 0;
    std::uint64_t restarts = 0;
    std::uint64_t never_booted = 0;
    std::size_t queued = 0;
    worker::histogram_counts durations;
    /// The group serves (or boots at start-up): a new worker generation that boots beside its
    /// old one, and a retired one that drains, are left out, so each worker name appears once.
    bool shown = false;
};

std::vector<group_figures> figures_of(const worker::pool& pool) {
    std::vector<group_figures> groups(pool.group_count());
    const bool started = pool.has_started();
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const worker::group_state state = pool.state_of(i);
        groups[i].shown = state == worker::group_state::serving ||
                          (!started && state == worker::group_state::booting);
    }
    for (const auto& s : pool.slots()) {
        const std::size_t group = pool.group_of(s->index());
        if (group >= groups.size() || !groups[group].shown) {
            continue;
        }
        group_figures& g = groups[group];
        const worker::slot_state state = s->state();
        if (state == worker::slot_state::done || state == worker::slot_state::reserved) {
            continue;  // a thread that ended, not yet joined, or one about to start
        }
        ++g.total;
        g.busy += state == worker::slot_state::busy ? 1 : 0;
        g.ready += state == worker::slot_state::busy || state == worker::slot_state::ready ? 1 : 0;
        g.running += state == worker::slot_state::booting || state == worker::slot_state::ready ||
                             state == worker::slot_state::busy ||
                             state == worker::slot_state::draining
                         ? 1
                         : 0;
        g.crashes += s->crashes();
        g.restarts += s->restarts();
        g.never_booted += s->boots() == 0 ? 1 : 0;
        g.durations += s->durations();
    }
    for (std::size_t i = 0; i < groups.size(); ++i) {
        groups[i].queued = pool.queued(i);
    }
    return groups;
}

}  // namespace

readiness check_readiness(const worker::pool& pool, bool draining) {
    if (draining) {
        return {false, "draining: the server is shutting down"};
    }
    // A worker told never to give up (max_consecutive_failures -1) lets start-up finish while
    // it keeps failing: its group counts as booted once one of its threads has.
    const std::vector<group_figures> groups = figures_of(pool);
    std::string waiting;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        if (groups[i].shown && groups[i].total > 0 && groups[i].never_booted == groups[i].total) {
            waiting +=
                (waiting.empty() ? "" : ", ") +
                (i == 0 ? std::string("the classic PHP threads") : "worker " + pool.group_name(i));
        }
    }
    if (!waiting.empty()) {
        return {false, "starting: " + waiting + " not booted yet"};
    }
    if (!pool.has_started()) {
        return {false, "starting: PHP threads still booting"};
    }
    return {true, {}};
}

std::string metrics_text(const worker::pool& pool, const http_metrics::snapshot& http,
                         std::size_t connections, const process_sample& process) {
    const std::vector<group_figures> groups = figures_of(pool);
    prometheus_writer w;

    // FrankenPHP's families: same names, types, labels and meanings, so its dashboards work.
    // Its busy threads are the classic threads serving a request plus every worker thread
    // whose script runs, idle or not (metrics.go: StartWorker to StopWorker);
    // spindle_busy_threads counts the threads serving a request.
    std::uint64_t serving = 0;
    std::uint64_t busy = groups.front().busy;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        serving += groups[i].busy;
        busy += i > 0 ? groups[i].running : 0;
    }
    w.family("frankenphp_total_threads", metric_type::gauge, "Total number of PHP threads");
    std::uint64_t threads = 0;
    for (const group_figures& g : groups) {
        threads += g.total;
    }
    w.sample("frankenphp_total_threads", {}, threads);
    const worker::scaling_stats scaling = pool.scaling();
    w.family("spindle_max_threads", metric_type::gauge,
             "PHP threads the pool may grow to under load (max_threads)");
    w.sample("spindle_max_threads", {}, static_cast<std::uint64_t>(scaling.max_threads));
    w.family("spindle_threads_added_total", metric_type::counter,
             "PHP threads started because requests waited (autoscaling)");
    w.sample("spindle_threads_added_total", {}, scaling.added);
    w.family("spindle_threads_removed_total", metric_type::counter,
             "PHP threads ended after max_idle_time without a request (autoscaling)");
    w.sample("spindle_threads_removed_total", {}, scaling.removed);
    w.family("frankenphp_busy_threads", metric_type::gauge, "Number of busy PHP threads");
    w.sample("frankenphp_busy_threads", {}, busy);
    w.family("spindle_busy_threads", metric_type::gauge,
             "PHP threads serving a request now (an idle worker thread is not counted)");
    w.sample("spindle_busy_threads", {}, serving);
    w.family("frankenphp_queue_depth", metric_type::gauge, "Number of regular queued requests");
    w.sample("frankenphp_queue_depth", {}, static_cast<std::uint64_t>(groups.front().queued));

    struct per_worker {
        const char* name;
        metric_type type;
        const char* help;
        std::uint64_t group_figures::*field;
    };
    static constexpr per_worker worker_families[] = {
        {"frankenphp_total_workers", metric_type::gauge,
         "Total number of PHP workers for this worker", &group_figures::total},
        {"frankenphp_busy_workers", metric_type::gauge,
         "Number of busy PHP workers for this worker", &group_figures::busy},
        {"frankenphp_ready_workers", metric_type::gauge,
         "Running workers that have successfully called frankenphp_handle_request at least once",
         &group_figures::ready},
        {"frankenphp_worker_crashes", metric_type::counter,
         "Number of PHP worker crashes for this worker", &group_figures::crashes},
        {"frankenphp_worker_restarts", metric_type::counter,
         "Number of PHP worker restarts for this worker", &group_figures::restarts},
    };
    for (const per_worker& family : worker_families) {
        w.family(family.name, family.type, family.help);
        for (std::size_t i = 1; i < groups.size(); ++i) {
            if (!groups[i].shown) {
                continue;
            }
            w.sample(family.name, {{"worker", pool.group_name(i)}}, groups[i].*family.field);
        }
    }
    // These three have no help text in FrankenPHP (metrics.go); tests and tools that compare
    // its exposition text compare that too. operations.md describes them.
    w.family("frankenphp_worker_request_time", metric_type::counter, "");
    for (std::size_t i = 1; i < groups.size(); ++i) {
        if (!groups[i].shown) {
            continue;
        }
        w.sample("frankenphp_worker_request_time", {{"worker", pool.group_name(i)}},
                 groups[i].durations.sum_seconds());
    }
    w.family("frankenphp_worker_request_count", metric_type::counter, "");
    for (std::size_t i = 1; i < groups.size(); ++i) {
        if (!groups[i].shown) {
            continue;
        }
        w.sample("frankenphp_worker_request_count", {{"worker", pool.group_name(i)}},
                 groups[i].durations.count());
    }
    w.family("frankenphp_worker_queue_depth", metric_type::gauge, "");
    for (std::size_t i = 1; i < groups.size(); ++i) {
        if (!groups[i].shown) {
            continue;
        }
        w.sample("frankenphp_worker_queue_depth", {{"worker", pool.group_name(i)}},
                 static_cast<std::uint64_t>(groups[i].queued));
    }

    // Spindle's own. The build, as Prometheus exporters name it (`*_build_info`, value 1):
    // dashboards join it to tell which PHP served a graph.
    w.family("spindle_build_info", metric_type::gauge,
             "Spindle and PHP versions of this process (always 1)");
    w.sample("spindle_build_info",
             {{"version", SPINDLE_VERSION}, {"php_version", sapi::engine::php_version()}},
             std::uint64_t{1});
    w.family("spindle_worker_request_duration_seconds", metric_type::histogram,
             "How long worker requests ran on their PHP thread");
    for (std::size_t i = 1; i < groups.size(); ++i) {
        if (!groups[i].shown) {
            continue;
        }
        w.histogram("spindle_worker_request_duration_seconds", {{"worker", pool.group_name(i)}},
                    groups[i].durations);
    }
    w.family("spindle_http_requests_total", metric_type::counter,
             "HTTP responses completely written, by status class");
    static constexpr const char* classes[] = {"1xx", "2xx", "3xx", "4xx", "5xx"};
    for (std::size_t i = 0; i < http.responses_by_class.size(); ++i) {
        w.sample("spindle_http_requests_total", {{"code", classes[i]}}, http.responses_by_class[i]);
    }
    w.family("spindle_http_request_duration_seconds", metric_type::histogram,
             "From a request's complete header to the end of its response");
    w.histogram("spindle_http_request_duration_seconds", {}, http.durations);
    w.family("spindle_connections", metric_type::gauge, "Open client connections");
    w.sample("spindle_connections", {}, static_cast<std::uint64_t>(connections));
    w.family("spindle_queue_rejections_total", metric_type::counter,
             "PHP requests answered 503 without running: queue full, or waited max_wait_time");
    w.sample("spindle_queue_rejections_total", {{"reason", "queue_full"}},
             http.rejections[static_cast<std::size_t>(rejection::queue_full)]);
    w.sample("spindle_queue_rejections_total", {{"reason", "timeout"}},
             http.rejections[static_cast<std::size_t>(rejection::timeout)]);
    w.family("spindle_tls_handshakes_total", metric_type::counter,
             "TLS handshakes on HTTPS addresses, completed or failed (failures are not logged)");
    w.sample("spindle_tls_handshakes_total", {{"result", "completed"}}, http.tls_handshakes[0]);
    w.sample("spindle_tls_handshakes_total", {{"result", "failed"}}, http.tls_handshakes[1]);
    w.family("spindle_slow_clients_closed_total", metric_type::counter,
             "Connections closed for taking a response slower than min_write_rate");
    w.sample("spindle_slow_clients_closed_total", {}, http.slow_clients);

    // The process, as every Prometheus client library exports it.
    if (process.cpu_seconds) {
        w.family("process_cpu_seconds_total", metric_type::counter,
                 "Total user and system CPU time spent in seconds.");
        w.sample("process_cpu_seconds_total", {}, *process.cpu_seconds);
    }
    const std::pair<const char*, const std::optional<std::uint64_t>*> sizes[] = {
        {"process_resident_memory_bytes", &process.resident_bytes},
        {"process_virtual_memory_bytes", &process.virtual_bytes},
        {"process_open_fds", &process.open_fds},
        {"process_max_fds", &process.max_fds},
    };
    static constexpr const char* size_help[] = {
        "Resident memory size in bytes.", "Virtual memory size in bytes.",
        "Number of open file descriptors.", "Maximum number of open file descriptors."};
    for (std::size_t i = 0; i < std::size(sizes); ++i) {
        if (*sizes[i].second) {
            w.family(sizes[i].first, metric_type::gauge, size_help[i]);
            w.sample(sizes[i].first, {}, **sizes[i].second);
        }
    }
    if (process.start_time_seconds) {
        w.family("process_start_time_seconds", metric_type::gauge,
                 "Start time of the process since unix epoch in seconds.");
        w.sample("process_start_time_seconds", {}, *process.start_time_seconds);
    }
    return w.text();
}

std::optional<std::size_t> backtrace_thread(std::string_view path) {
    constexpr std::string_view prefix = "/threads/";
    constexpr std::string_view suffix = "/backtrace";
    if (!path.starts_with(prefix) || !path.ends_with(suffix) ||
        path.size() <= prefix.size() + suffix.size()) {
        return std::nullopt;
    }
    const std::string_view digits =
        path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
    // Slot counts are far below this; more digits could only overflow.
    if (digits.size() > 9 || (digits.size() > 1 && digits.front() == '0')) {
        return std::nullopt;
    }
    std::size_t value = 0;
    for (const char c : digits) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        value = value * 10 + static_cast<std::size_t>(c - '0');
    }
    return value;
}

std::string threads_json(const worker::pool& pool, bool draining, double now) {
    using json = nlohmann::ordered_json;
    const readiness ready = check_readiness(pool, draining);
    json threads = json::array();
    std::uint64_t busy = 0;
    std::uint64_t total = 0;
    for (const auto& s : pool.slots()) {
        const std::size_t group = pool.group_of(s->index());
        const worker::slot_state state = s->state();
        if (group == worker::pool::no_group) {
            // A spare slot, kept for the next worker generation.
            continue;
        }
        // An ended thread (retired generation, or ended by the scaler) is listed until it is
        // joined, but no longer counted.
        total += state == worker::slot_state::done ? 0 : 1;
        busy += state == worker::slot_state::busy ? 1 : 0;
        json entry;
        entry["index"] = s->index();
        entry["group"] = pool.group_name(group);
        entry["generation"] = group;
        entry["worker"] = group != 0;
        entry["state"] = worker::to_string(state);
        entry["requests"] = s->requests_served();
        entry["boots"] = s->boots();
        entry["crashes"] = s->crashes();
        entry["restarts"] = s->restarts();
        json request = nullptr;
        if (const std::optional<worker::running_request> running = s->running()) {
            request = {{"method", running->method},
                       {"client", running->client},
                       {"uri", running->uri},
                       {"id", running->id},
                       {"running_ms",
                        std::chrono::duration<double, std::milli>(running->elapsed).count()}};
        }
        entry["request"] = std::move(request);
        const sapi::memory_use memory = s->memory();
        entry["memory_bytes"] = memory.in_use;
        entry["peak_memory_bytes"] = memory.peak;
        entry["held_memory_bytes"] = memory.held;
        threads.push_back(std::move(entry));
    }
    json groups = json::array();
    for (std::size_t i = 0; i < pool.group_count(); ++i) {
        const worker::group_state state = pool.state_of(i);
        if (state == worker::group_state::retiring && pool.queued(i) == 0) {
            bool running = false;
            for (const auto& s : pool.slots()) {
                running = running || pool.group_of(s->index()) == i;
            }
            if (!running) {
                continue;
            }
        }
        groups.push_back({{"name", pool.group_name(i)},
                          {"generation", i},
                          {"state", worker::to_string(state)},
                          {"worker", i != 0},
                          {"queued", pool.queued(i)}});
    }
    json document;
    document["version"] = SPINDLE_VERSION;
    document["php_version"] = sapi::engine::php_version();
    document["time"] = now;
    document["ready"] = ready.ready;
    document["reason"] = ready.reason;
    document["draining"] = draining;
    document["total"] = total;
    document["busy"] = busy;
    const worker::scaling_stats scaling = pool.scaling();
    document["max_threads"] = scaling.max_threads;
    document["threads_added"] = scaling.added;
    document["threads_removed"] = scaling.removed;
    document["groups"] = std::move(groups);
    document["threads"] = std::move(threads);
    // Replace bytes that are not UTF-8 (a URI may hold any): dump() would throw on them.
    return document.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string certificate_metrics_text(const acme::certificate_manager* certificates) {
    if (certificates == nullptr) {
        return {};
    }
    const std::vector<acme::certificate_manager::expiry> expiries = certificates->expiries();
    prometheus_writer w;
    w.family("spindle_tls_certificate_expiry_seconds", metric_type::gauge,
             "Unix time at which a managed certificate expires (renewed a third of its "
             "lifetime before)");
    for (const auto& e : expiries) {
        const auto seconds =
            std::chrono::duration_cast<std::chrono::seconds>(e.not_after.time_since_epoch());
        w.sample("spindle_tls_certificate_expiry_seconds", {{"name", e.name}},
                 static_cast<std::uint64_t>(seconds.count()));
    }
    w.family("spindle_tls_certificate_fallback", metric_type::gauge,
             "1 while a site serves the self-signed stand-in because the CA has not issued its "
             "certificate yet");
    for (const auto& e : expiries) {
        w.sample("spindle_tls_certificate_fallback", {{"name", e.name}},
                 static_cast<std::uint64_t>(e.is_fallback ? 1 : 0));
    }
    return w.text();
}

}  // namespace spindle::server
