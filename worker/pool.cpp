#include "worker/pool.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <spdlog/spdlog.h>

namespace spindle::worker {
namespace {

// PHP threads run under SCHED_BATCH: same CPU share as any thread (nice 0), but a PHP thread
// woken with a request does not preempt the thread that woke it. Under SCHED_OTHER, an I/O
// thread handing out requests was preempted at each hand-off by the PHP thread it had just
// woken, before it could parse and hand out the next ones: a context switch per request each
// way. The I/O threads keep SCHED_OTHER, so a client's bytes are still read at once. At
// saturation on 2 cores: worker hello 30.3 -> 21.4 us of CPU per request, classic hello
// 55.5 -> 46.4, p99 at c=128 about halved (bench/RESULTS.md item 15). Slot thread.
void run_as_batch_thread(std::size_t index) {
    sched_param param{};
    if (const int error = pthread_setschedparam(pthread_self(), SCHED_BATCH, &param); error != 0) {
        // A sandbox may refuse it; the thread then runs as before, only slower under load.
        spdlog::get("worker")->debug("slot {}: SCHED_BATCH refused ({}); default policy kept",
                                     index, std::strerror(error));
    }
}

}  // namespace

pool::pool(pool_options options) : max_queue_(options.max_queue) {
    for (auto& g : options.groups) {
        std::size_t group_index = groups_.size();
        for (std::size_t i = 0; i < g.num_threads; ++i) {
            slot_group_.push_back(group_index);
            slots_.push_back(std::make_unique<slot>(slots_.size()));
        }
        groups_.push_back(std::make_unique<group>(std::move(g)));
        groups_.back()->idle.reserve(groups_.back()->options.num_threads);
    }
}

pool::~pool() {
    stop();
}

bool pool::start() {
    for (auto& s : slots_) {
        s->transition(slot_state::booting);
        s->thread_ = std::thread([this, index = s->index()] { run_slot(index); });
    }
    std::string error;
    bool cancelled = false;
    {
        std::unique_lock lock(boot_mutex_);
        boot_cv_.wait(lock, [this] {
            return booted_ == slots_.size() || !startup_error_.empty() || start_cancelled_;
        });
        error = startup_error_;
        cancelled = error.empty() && start_cancelled_ && booted_ != slots_.size();
        started_ = error.empty() && !cancelled;
    }
    if (!error.empty() || cancelled) {
        stop();
        if (cancelled) {
            return false;
        }
        throw std::runtime_error(error);
    }
    spdlog::get("worker")->info("{} PHP threads ready", slots_.size());
    return true;
}

void pool::cancel_start() {
    {
        std::lock_guard lock(boot_mutex_);
        start_cancelled_ = true;
    }
    boot_cv_.notify_all();
}

void pool::begin_stop() {
    for (auto& g : groups_) {
        std::lock_guard lock(g->mutex);
        g->stopping = true;
    }
}

void pool::stop() {
    begin_stop();
    for (auto& s : slots_) {
        s->wakeup_.post();
    }
    for (auto& s : slots_) {
        if (s->thread_.joinable()) {
            s->thread_.join();
        }
    }
}

bool pool::stop_within(std::chrono::milliseconds limit) {
    begin_stop();
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        slots_[i]->wakeup_.post();
        if (slots_[i]->state() == slot_state::busy) {
            spdlog::get("worker")->warn(
                "slot {}: still running a request after the grace period; interrupting it", i);
            groups_[slot_group_[i]]->options.runtime->interrupt(i);
        }
    }
    // Polled: this runs once, at the very end, on the control thread.
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        const slot& s = *slots_[i];
        while (s.thread_.joinable() && !s.thread_ended_.load(std::memory_order_acquire)) {
            if (std::chrono::steady_clock::now() >= deadline) {
                spdlog::get("worker")->error(
                    "slot {}: PHP thread still running {} ms after it was interrupted ({}); "
                    "leaving it behind",
                    i, limit.count(), to_string(s.state()));
                return false;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
    stop();
    return true;
}

bool pool::has_started() const {
    std::lock_guard lock(boot_mutex_);
    return started_;
}

submit_result pool::submit(std::size_t group_index, job request, std::uint64_t* ticket) {
    group& g = *groups_[group_index];
    // Every path writes the ticket: one left from an earlier submission would name another
    // request's queue entry.
    *ticket = 0;
    std::unique_lock lock(g.mutex);
    if (g.stopping) {
        return submit_result::rejected;
    }
    if (!g.idle.empty()) {
        slot& s = *slots_[g.idle.back()];
        g.idle.pop_back();
        s.assigned_ = std::move(request);
        s.transition(slot_state::busy);
        ++g.busy;
        lock.unlock();
        s.wakeup_.post();
        return submit_result::assigned;
    }
    if (g.queue.size() >= max_queue_) {
        return submit_result::rejected;
    }
    *ticket = g.next_ticket++;
    g.queue.push_back({*ticket, std::move(request)});
    return submit_result::queued;
}

bool pool::withdraw(std::size_t group_index, std::uint64_t ticket) {
    group& g = *groups_[group_index];
    std::lock_guard lock(g.mutex);
    // Entries expire in arrival order, so the one asked for is almost always at the front.
    auto it = std::find_if(g.queue.begin(), g.queue.end(),
                           [ticket](const queued_job& q) { return q.ticket == ticket; });
    if (it == g.queue.end()) {
        return false;
    }
    g.queue.erase(it);
    return true;
}

std::size_t pool::drop_abandoned() {
    std::size_t dropped = 0;
    for (auto& g : groups_) {
        std::lock_guard lock(g->mutex);
        dropped += std::erase_if(g->queue, [](const queued_job& q) {
            return q.request->sink != nullptr && q.request->sink->is_aborted();
        });
    }
    return dropped;
}

pool_stats pool::stats() const {
    pool_stats total;
    total.total = slots_.size();
    for (const auto& g : groups_) {
        std::lock_guard lock(g->mutex);
        total.busy += g->busy;
        total.queued += g->queue.size();
    }
    return total;
}

void pool::run_slot(std::size_t index) {
    slot& s = *slots_[index];
    // Named after its slot for top -H, perf and gdb; /threads on the admin endpoint uses the
    // same index.
    pthread_setname_np(pthread_self(), ("spindle-php-" + std::to_string(index)).c_str());
    run_as_batch_thread(index);
    groups_[slot_group_[index]]->options.runtime->run_thread(index, *this);
    // Whatever the runtime left behind (restarting after a failed boot, booting after a
    // refused start), the thread is over.
    if (s.state() == slot_state::restarting || s.state() == slot_state::booting ||
        s.state() == slot_state::draining) {
        s.transition(slot_state::done);
    }
    s.thread_ended_.store(true, std::memory_order_release);
}

void pool::mark_booted() {
    {
        std::lock_guard lock(boot_mutex_);
        ++booted_;
    }
    boot_cv_.notify_all();
}

job pool::next_job(std::size_t index) {
    slot& s = *slots_[index];
    // The bookkeeping of the request that ended and of the one that starts happens outside the
    // group's mutex: only this thread writes those counters.
    s.end_request();
    job next = take_job(index);
    if (next) {
        s.begin_request(*next);
    }
    return next;
}

job pool::take_job(std::size_t index) {
    slot& s = *slots_[index];
    group& g = *groups_[slot_group_[index]];
    std::unique_lock lock(g.mutex);
    auto restart_requested = [&] { return s.generation_ != g.restart_generation; };
    if (s.state() == slot_state::booting) {
        // The runtime finished setting the thread (or its worker script) up.
        s.transition(slot_state::ready);
        s.count_boot();
        s.generation_ = g.restart_generation;
        if (!s.has_booted_) {
            s.has_booted_ = true;
            mark_booted();
        }
    } else if (s.state() == slot_state::busy) {
        if (restart_requested()) {
            // The runtime ends its script now and calls restart(), which settles the count.
            return nullptr;
        }
        // Oldest waiting request first; the slot stays busy and warm. Not once the pool stops:
        // its clients could no longer get the answer.
        if (!g.stopping && !g.queue.empty()) {
            job next = std::move(g.queue.front().request);
            g.queue.pop_front();
            return next;
        }
        --g.busy;
        s.transition(slot_state::ready);
    }
    if (!restart_requested() && !g.stopping && !g.queue.empty()) {
        // Requests queued while this slot was booting or restarting.
        job next = std::move(g.queue.front().request);
        g.queue.pop_front();
        s.transition(slot_state::busy);
        ++g.busy;
        return next;
    }
    g.idle.push_back(index);
    while (!s.assigned_ && !g.stopping && !restart_requested()) {
        lock.unlock();
        s.wakeup_.wait();
        lock.lock();
    }
    if (s.assigned_) {
        return std::move(s.assigned_);
    }
    // Stopping or restarting: the queue is empty whenever a slot is idle, so nothing is left
    // behind; queued requests wait for the slots that boot again.
    g.idle.erase(std::find(g.idle.begin(), g.idle.end(), index));
    s.transition(slot_state::draining);
    return nullptr;
}

bool pool::is_stopping(std::size_t index) const {
    const group& g = *groups_[slot_group_[index]];
    std::lock_guard lock(g.mutex);
    return g.stopping;
}

void pool::restart_group(std::size_t group_index) {
    group& g = *groups_[group_index];
    {
        std::lock_guard lock(g.mutex);
        ++g.restart_generation;
    }
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        if (slot_group_[i] == group_index) {
            slots_[i]->wakeup_.post();
        }
    }
}

std::size_t pool::interrupt_stale(std::size_t group_index) {
    group& g = *groups_[group_index];
    std::vector<std::size_t> stale;
    {
        std::lock_guard lock(g.mutex);
        for (std::size_t i = 0; i < slots_.size(); ++i) {
            if (slot_group_[i] == group_index && slots_[i]->state() == slot_state::busy &&
                slots_[i]->generation_ != g.restart_generation) {
                stale.push_back(i);
            }
        }
    }
    for (std::size_t index : stale) {
        spdlog::get("worker")->warn(
            "slot {}: worker {} still busy after the restart grace period; interrupting its "
            "request",
            index, g.options.name);
        g.options.runtime->interrupt(index);
    }
    return stale.size();
}

std::size_t pool::group_count() const noexcept {
    return groups_.size();
}

std::size_t pool::group_of(std::size_t slot_index) const noexcept {
    return slot_group_[slot_index];
}

const std::string& pool::group_name(std::size_t group_index) const noexcept {
    return groups_[group_index]->options.name;
}

std::size_t pool::queued(std::size_t group_index) const {
    const group& g = *groups_[group_index];
    std::lock_guard lock(g.mutex);
    return g.queue.size();
}

bool pool::restart(std::size_t index, std::chrono::milliseconds backoff, restart_reason reason) {
    slot& s = *slots_[index];
    group& g = *groups_[slot_group_[index]];
    // A script that ends in the middle of a request (a crash, max_requests) ends that request.
    s.end_request();
    s.count_restart(reason);
    std::unique_lock lock(g.mutex);
    if (s.state() == slot_state::busy) {
        --g.busy;
    }
    s.transition(slot_state::restarting);
    const auto until = std::chrono::steady_clock::now() + backoff;
    while (!g.stopping) {
        lock.unlock();
        const bool woken = s.wakeup_.wait_until(until);
        lock.lock();
        if (!woken) {
            break;
        }
    }
    if (g.stopping) {
        return false;
    }
    s.transition(slot_state::booting);
    return true;
}

void pool::fail_startup(std::string reason) {
    {
        std::lock_guard lock(boot_mutex_);
        if (startup_error_.empty()) {
            startup_error_ = std::move(reason);
        }
    }
    boot_cv_.notify_all();
}

void pool::settle_startup(std::size_t index) {
    slot& s = *slots_[index];
    group& g = *groups_[slot_group_[index]];
    std::lock_guard lock(g.mutex);
    if (!s.has_booted_) {
        s.has_booted_ = true;
        mark_booted();
    }
}

}  // namespace spindle::worker
