// Thread autoscaling: the pool's scaler thread, which adds threads to groups whose requests
// wait and ends threads that sat idle (pool.hpp, scaling_rule.hpp). Everything here runs on
// the scaler thread, except stop_scaler() (control thread).
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>

#include <algorithm>

#include <spdlog/spdlog.h>

#include "worker/pool.hpp"
#include "worker/scaling_rule.hpp"

namespace spindle::worker {
namespace {

// How often idle threads are looked for: often enough that a thread ends soon after its
// max_idle_time, rarely enough to cost nothing (FrankenPHP looks every 5 s).
std::chrono::milliseconds shrink_interval(std::chrono::milliseconds max_idle_time) {
    return std::clamp(max_idle_time / 4, std::chrono::milliseconds(100),
                      std::chrono::milliseconds(1000));
}

// Gives the memory that ended threads freed back to the system, whichever malloc serves the
// process: jemalloc (the default build) keeps freed pages until they decay (10 s) unless its
// arenas are purged; glibc's keeps the tops of its arenas unless trimmed.
void return_free_memory() {
    using mallctl_function = int (*)(const char*, void*, std::size_t*, void*, std::size_t);
    // Looked up rather than linked: builds with the system's malloc (and the sanitizers') have
    // no jemalloc.
    static const auto mallctl = reinterpret_cast<mallctl_function>(dlsym(RTLD_DEFAULT, "mallctl"));
    if (mallctl != nullptr) {
        // 4096 is MALLCTL_ARENAS_ALL: every arena.
        mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
    } else {
        malloc_trim(0);
    }
}

}  // namespace

void pool::run_scaler() {
    pthread_setname_np(pthread_self(), "spindle-scaler");
    cpu_meter cpu(cpus_);
    std::vector<thread_sample> samples(slots_.size());
    auto window_start = std::chrono::steady_clock::now();
    bool stalled_before = false;
    auto next_shrink = window_start + shrink_interval(max_idle_time_);
    for (;;) {
        {
            std::lock_guard lock(boot_mutex_);
            if (stopping_) {
                return;
            }
        }
        const auto now = std::chrono::steady_clock::now();
        if (now >= next_shrink) {
            shrink(now);
            release_ended();
            next_shrink = now + shrink_interval(max_idle_time_);
        }
        auto wake_at = next_shrink;
        if (const auto stall = longest_stall(now)) {
            // The CPU is measured from the moment requests start to wait: a window of the
            // quiet before would hide a CPU that the burst keeps busy.
            if (!stalled_before) {
                cpu.restart();
                sample_cpu_wait(samples, std::chrono::nanoseconds(0));
                window_start = now;
                stalled_before = true;
            } else if (*stall >= min_stall && now - window_start >= cpu_window) {
                const double usage = cpu.usage();
                const std::vector<double> wait = sample_cpu_wait(samples, now - window_start);
                window_start = now;
                grow(now, usage, wait);
            }
            wake_at = std::min(wake_at, now + min_stall);
        } else {
            stalled_before = false;
        }
        scaler_wakeup_.wait_until(wake_at);
    }
}

std::vector<double> pool::sample_cpu_wait(std::vector<thread_sample>& last,
                                          std::chrono::nanoseconds window) const {
    const std::size_t groups = group_count();
    std::vector<std::chrono::nanoseconds> waited(groups);
    std::vector<std::size_t> counted(groups);
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        const slot& s = *slots_[i];
        const pid_t tid = s.thread_id();
        const slot_state state = s.state();
        if (tid == 0 || state == slot_state::reserved || state == slot_state::done) {
            last[i] = {};
            continue;
        }
        const std::optional<std::chrono::nanoseconds> now = cpu_waited(tid);
        const std::size_t group = group_of(i);
        // A slot lent to a new thread since the last sample (another tid) starts afresh.
        if (now && last[i].tid == tid && group < groups) {
            waited[group] += *now - last[i].waited;
            ++counted[group];
        }
        last[i] = now ? thread_sample{tid, *now} : thread_sample{};
    }
    std::vector<double> wait(groups, 0.0);
    for (std::size_t g = 0; g < groups; ++g) {
        if (counted[g] > 0 && window.count() > 0) {
            wait[g] = static_cast<double>(waited[g].count()) /
                      (static_cast<double>(window.count()) * static_cast<double>(counted[g]));
        }
    }
    return wait;
}

std::size_t pool::live_threads() const {
    // A retiring generation's draining threads do not count against max_threads: its
    // successor replaces them.
    std::size_t live = 0;
    for (std::size_t i = 0; i < group_count(); ++i) {
        const group& g = group_at(i);
        std::lock_guard lock(g.mutex);
        live += g.state == group_state::serving || g.state == group_state::booting ? g.threads : 0;
    }
    return live;
}

std::optional<std::chrono::steady_clock::duration> pool::longest_stall(
    std::chrono::steady_clock::time_point now) const {
    // At max_threads nothing can be added: no reason to watch the queues until a thread ends
    // (the next shrink) or a queue starts again.
    if (live_threads() >= max_threads_) {
        return std::nullopt;
    }
    std::optional<std::chrono::steady_clock::duration> longest;
    for (std::size_t i = 0; i < group_count(); ++i) {
        const group& g = group_at(i);
        std::lock_guard lock(g.mutex);
        if (g.state != group_state::serving || g.stopping || g.queue.empty() ||
            g.threads >= g.options.max_threads) {
            continue;
        }
        const auto waited = now - g.queue.front().since;
        longest = longest ? std::max(*longest, waited) : waited;
    }
    return longest;
}

void pool::grow(std::chrono::steady_clock::time_point now, double cpu_usage,
                const std::vector<double>& cpu_wait) {
    std::lock_guard slots_guard(slots_mutex_);
    {
        std::lock_guard lock(boot_mutex_);
        if (stopping_) {
            return;
        }
    }
    std::size_t live = live_threads();
    // Threads added to each group that have not taken a request yet: they will take queued
    // ones.
    std::vector<std::size_t> booting(group_count());
    for (const auto& s : slots_) {
        const std::size_t group = group_of(s->index());
        if (group < booting.size() && s->state() == slot_state::booting) {
            ++booting[group];
        }
    }
    for (std::size_t i = 0; i < booting.size() && live < max_threads_; ++i) {
        group& g = group_at(i);
        const double wait = i < cpu_wait.size() ? cpu_wait[i] : 0.0;
        std::vector<std::size_t> added;
        std::size_t queued = 0;
        std::size_t threads = 0;
        {
            std::lock_guard lock(g.mutex);
            if (g.state != group_state::serving || g.stopping || g.queue.empty() ||
                now - g.queue.front().since < min_stall) {
                continue;
            }
            const std::size_t count =
                threads_to_add({g.queue.size(), booting[i], g.threads, g.options.max_threads,
                                max_threads_ - live, cpu_usage, wait});
            added = spare_slots(count);
            for (const std::size_t index : added) {
                slot_group_[index].store(i, std::memory_order_release);
            }
            g.threads += added.size();
            live += added.size();
            queued = g.queue.size();
            threads = g.threads;
            if (count > 0 && added.empty()) {
                spdlog::get("worker")->warn(
                    "{}: no spare slot to add a thread (old worker generations still drain)",
                    g.options.name);
            }
        }
        for (const std::size_t index : added) {
            start_thread(index);
        }
        if (!added.empty()) {
            added_.fetch_add(added.size(), std::memory_order_relaxed);
            spdlog::get("worker")->info(
                "{}: {} requests waiting, CPU {:.0f}% used, {:.0f}% of its threads' time waiting "
                "for a CPU: added {} PHP thread(s), {} now (max {})",
                g.options.name, queued, cpu_usage * 100, wait * 100, added.size(), threads,
                g.options.max_threads);
        }
    }
}

void pool::shrink(std::chrono::steady_clock::time_point now) {
    for (std::size_t i = 0; i < group_count(); ++i) {
        group& g = group_at(i);
        std::size_t ended = 0;
        std::lock_guard lock(g.mutex);
        if (g.state != group_state::serving || g.stopping) {
            continue;
        }
        // The bottom of the idle stack has waited longest: a slot that serves goes back on
        // top.
        while (g.threads > g.options.num_threads && !g.idle.empty()) {
            slot& s = *slots_[g.idle.front()];
            if (now - s.idle_since_ < max_idle_time_) {
                break;
            }
            g.idle.erase(g.idle.begin());
            s.transition(slot_state::draining);
            s.wakeup_.post();
            --g.threads;
            ++ended;
        }
        if (ended > 0) {
            removed_.fetch_add(ended, std::memory_order_relaxed);
            spdlog::get("worker")->info("{}: {} PHP thread(s) idle for {} ms ended, {} now",
                                        g.options.name, ended, max_idle_time_.count(), g.threads);
        }
    }
}

void pool::release_ended() {
    std::size_t joined = 0;
    {
        std::lock_guard lock(slots_mutex_);
        joined = reap_locked().second;
    }
    if (joined > 0) {
        // The ended threads' PHP heaps went back with munmap; what malloc still keeps of
        // theirs goes back too, so RSS falls with the thread count.
        return_free_memory();
    }
}

void pool::stop_scaler() {
    scaler_wakeup_.post();
    if (scaler_.joinable()) {
        scaler_.join();
    }
}

}  // namespace spindle::worker
