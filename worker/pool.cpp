#include "worker/pool.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <spdlog/spdlog.h>

#include "worker/alternate_signal_stack.hpp"

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

std::string_view to_string(group_state state) noexcept {
    switch (state) {
        case group_state::booting: return "booting";
        case group_state::serving: return "serving";
        case group_state::retiring: return "retiring";
        case group_state::failed: return "failed";
    }
    return "unknown";
}

bool is_group_transition_allowed(group_state from, group_state to) noexcept {
    using enum group_state;
    switch (from) {
        case booting: return to == serving || to == failed;
        case serving: return to == retiring;
        // A failed generation is retired too once its successor is known (or none is).
        case failed: return to == retiring;
        case retiring: return false;
    }
    return false;
}

namespace {

std::size_t initial_threads(const pool_options& options) noexcept {
    std::size_t threads = 0;
    for (const group_options& g : options.groups) {
        threads += g.num_threads;
    }
    return threads;
}

}  // namespace

pool::pool(pool_options options)
    : max_queue_(options.max_queue),
      groups_(max_groups),
      max_threads_(std::max(options.max_threads, initial_threads(options))),
      max_idle_time_(options.max_idle_time),
      cpus_(options.cpus) {
    const std::size_t threads = initial_threads(options);
    const std::size_t capacity = std::max({options.capacity, threads, max_threads_});
    slot_group_ = std::make_unique<std::atomic<std::size_t>[]>(capacity);
    for (std::size_t i = 0; i < capacity; ++i) {
        slots_.push_back(std::make_unique<slot>(i));
        slot_group_[i].store(no_group, std::memory_order_relaxed);
    }
    std::size_t next_slot = 0;
    for (auto& g : options.groups) {
        const std::size_t group_index = group_count_.load(std::memory_order_relaxed);
        for (std::size_t i = 0; i < g.num_threads; ++i) {
            slot_group_[next_slot++].store(group_index, std::memory_order_relaxed);
        }
        groups_[group_index] = std::make_unique<group>(std::move(g));
        groups_[group_index]->threads = groups_[group_index]->options.num_threads;
        bound_growth(groups_[group_index]->options);
        groups_[group_index]->idle.reserve(capacity);
        group_count_.store(group_index + 1, std::memory_order_release);
    }
    initial_slots_ = next_slot;
}

void pool::bound_growth(group_options& options) const noexcept {
    // A group grows between its num_threads and the pool's max_threads: in a pool that does
    // not scale, no group asks the (absent) scaler for threads.
    options.max_threads =
        std::max(options.num_threads, std::min(options.max_threads, max_threads_));
}

pool::~pool() {
    stop();
}

void pool::set_group_state(group& g, group_state to) {
    if (!is_group_transition_allowed(g.state, to)) {
        spdlog::get("worker")->error("group {}: refused state change {} -> {}", g.options.name,
                                     to_string(g.state), to_string(to));
        return;
    }
    g.state = to;
}

void pool::start_thread(std::size_t index) {
    slot& s = *slots_[index];
    s.transition(slot_state::booting);
    s.thread_ = std::thread([this, index] { run_slot(index); });
}

bool pool::start() {
    for (std::size_t i = 0; i < initial_slots_; ++i) {
        start_thread(i);
    }
    std::string error;
    bool cancelled = false;
    {
        std::unique_lock lock(boot_mutex_);
        boot_cv_.wait(lock, [this] {
            return booted_ == initial_slots_ || !startup_error_.empty() || start_cancelled_;
        });
        error = startup_error_;
        cancelled = error.empty() && start_cancelled_ && booted_ != initial_slots_;
        started_ = error.empty() && !cancelled;
    }
    if (!error.empty() || cancelled) {
        stop();
        if (cancelled) {
            return false;
        }
        throw std::runtime_error(error);
    }
    for (std::size_t i = 0; i < group_count(); ++i) {
        std::lock_guard lock(group_at(i).mutex);
        set_group_state(group_at(i), group_state::serving);
    }
    if (scales()) {
        scaler_ = std::thread([this] { run_scaler(); });
        spdlog::get("worker")->info("{} PHP threads ready; up to {} under load", initial_slots_,
                                    max_threads_);
    } else {
        spdlog::get("worker")->info("{} PHP threads ready", initial_slots_);
    }
    return true;
}

std::size_t pool::add_group(group_options options) {
    // Slots change hands under slots_mutex_ (the scaler takes spare ones too). boot_mutex_ is
    // held until the threads run: a stop() that begins meanwhile either comes first (and
    // nothing starts) or sees the new group and joins its threads.
    std::lock_guard slots_guard(slots_mutex_);
    reap_locked();
    std::lock_guard stop_guard(boot_mutex_);
    if (stopping_) {
        throw std::runtime_error("the server is shutting down");
    }
    const std::size_t group_index = group_count_.load(std::memory_order_relaxed);
    if (group_index == max_groups) {
        throw std::runtime_error("this process has made " + std::to_string(max_groups) +
                                 " worker generations; restart it to make more");
    }
    const std::vector<std::size_t> spare = spare_slots(options.num_threads);
    if (spare.size() < options.num_threads) {
        throw std::runtime_error("worker " + options.name + " needs " +
                                 std::to_string(options.num_threads) + " PHP threads, " +
                                 std::to_string(spare.size()) +
                                 " are spare while the old generations drain; restart the "
                                 "server to apply it, or reload again once they ended");
    }
    groups_[group_index] = std::make_unique<group>(std::move(options));
    groups_[group_index]->threads = spare.size();
    bound_growth(groups_[group_index]->options);
    groups_[group_index]->idle.reserve(slots_.size());
    for (std::size_t index : spare) {
        slot_group_[index].store(group_index, std::memory_order_release);
    }
    group_count_.store(group_index + 1, std::memory_order_release);
    for (std::size_t index : spare) {
        start_thread(index);
    }
    return group_index;
}

std::optional<std::string> pool::wait_ready(std::size_t group_index,
                                            std::chrono::milliseconds limit) {
    group& g = group_at(group_index);
    std::string error;
    {
        std::unique_lock lock(boot_mutex_);
        const bool done = boot_cv_.wait_for(lock, limit, [&] {
            return g.booted >= g.options.num_threads || !g.boot_error.empty() || stopping_;
        });
        if (stopping_ && g.booted < g.options.num_threads) {
            g.boot_error = "the server is shutting down";
        } else if (!done) {
            g.boot_error = "its threads did not all boot within " +
                           std::to_string(limit.count() / 1000) + " s";
        }
        error = g.boot_error;
    }
    {
        std::lock_guard lock(g.mutex);
        if (error.empty()) {
            set_group_state(g, group_state::serving);
            return std::nullopt;
        }
        if (g.state == group_state::booting) {
            set_group_state(g, group_state::failed);
        }
        g.stopping = true;
    }
    wake_group(group_index);
    return error;
}

void pool::retire_group(std::size_t group_index, std::size_t successor) {
    group& g = group_at(group_index);
    std::deque<queued_job> moved;
    {
        std::lock_guard lock(g.mutex);
        if (g.state == group_state::retiring) {
            return;
        }
        set_group_state(g, group_state::retiring);
        if (successor != no_group) {
            g.successor = successor;
            moved.swap(g.queue);
        }
    }
    if (!moved.empty()) {
        // Requests that waited for the old generation are served by the new one at once,
        // rather than waiting out max_wait_time for threads that will never take them.
        group& next = group_at(successor);
        std::lock_guard lock(next.mutex);
        for (queued_job& q : moved) {
            next.queue.push_back(std::move(q));
        }
        dispatch_queued(next);
    }
    wake_group(group_index);
}

void pool::dispatch_queued(group& g) {
    while (!g.idle.empty() && !g.queue.empty()) {
        slot& s = *slots_[g.idle.back()];
        g.idle.pop_back();
        s.assigned_ = std::move(g.queue.front().request);
        g.queue.pop_front();
        s.transition(slot_state::busy);
        ++g.busy;
        s.wakeup_.post();
    }
}

void pool::wake_group(std::size_t group_index) {
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        if (slot_group_[i].load(std::memory_order_acquire) == group_index) {
            slots_[i]->wakeup_.post();
        }
    }
}

bool pool::request_backtrace(std::size_t index, sapi::backtrace_order order) const noexcept {
    if (index >= slots_.size()) {
        return false;
    }
    const std::size_t group_index = group_of(index);
    if (group_index >= group_count_.load(std::memory_order_acquire)) {
        return false;
    }
    return group_at(group_index).options.runtime->request_backtrace(index, std::move(order));
}

std::size_t pool::interrupt_busy(std::size_t group_index) {
    group& g = group_at(group_index);
    std::vector<std::size_t> busy;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        if (slot_group_[i].load(std::memory_order_acquire) == group_index &&
            slots_[i]->state() == slot_state::busy) {
            busy.push_back(i);
        }
    }
    for (std::size_t index : busy) {
        spdlog::get("worker")->warn(
            "slot {}: worker {} still busy after the restart grace period; interrupting its "
            "request",
            index, g.options.name);
        g.options.runtime->interrupt(index);
    }
    return busy.size();
}

std::vector<std::size_t> pool::spare_slots(std::size_t count) const {
    std::vector<std::size_t> spare;
    for (const auto& s : slots_) {
        if (spare.size() == count) {
            break;
        }
        if (s->state() == slot_state::reserved) {
            spare.push_back(s->index());
        }
    }
    return spare;
}

std::size_t pool::reap() {
    std::lock_guard lock(slots_mutex_);
    return reap_locked().first;
}

std::pair<std::size_t, std::size_t> pool::reap_locked() {
    std::size_t in_use = 0;
    std::size_t joined = 0;
    for (auto& s : slots_) {
        if (s->thread_.joinable() && s->thread_ended_.load(std::memory_order_acquire)) {
            s->thread_.join();
            ++joined;
        }
        if (s->state() == slot_state::done && !s->thread_.joinable()) {
            // The slot is spare again: a new generation may take it.
            s->transition(slot_state::reserved);
            s->has_booted_ = false;
            s->thread_ended_.store(false, std::memory_order_relaxed);
            slot_group_[s->index()].store(no_group, std::memory_order_release);
        }
        in_use += s->state() == slot_state::reserved ? 0 : 1;
    }
    return {in_use, joined};
}

void pool::cancel_start() {
    {
        std::lock_guard lock(boot_mutex_);
        start_cancelled_ = true;
    }
    boot_cv_.notify_all();
}

void pool::begin_stop() {
    for (std::size_t i = 0; i < group_count(); ++i) {
        std::lock_guard lock(group_at(i).mutex);
        group_at(i).stopping = true;
    }
    {
        std::lock_guard lock(boot_mutex_);
        stopping_ = true;
    }
    boot_cv_.notify_all();
}

void pool::stop() {
    begin_stop();
    // First: the scaler starts and joins slot threads.
    stop_scaler();
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
    stop_scaler();
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        slots_[i]->wakeup_.post();
        if (slots_[i]->state() == slot_state::busy) {
            spdlog::get("worker")->warn(
                "slot {}: still running a request after the grace period; interrupting it", i);
            group_at(group_of(i)).options.runtime->interrupt(i);
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
    // Every path writes the ticket: one left from an earlier submission would name another
    // request's queue entry.
    *ticket = 0;
    for (;;) {
        group& g = group_at(group_index);
        std::unique_lock lock(g.mutex);
        if (g.state == group_state::retiring && g.successor != no_group) {
            // A request routed by the configuration it started with, to a generation that was
            // replaced since: its successor serves it.
            group_index = g.successor;
            continue;
        }
        if (g.stopping || g.state == group_state::retiring) {
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
        *ticket = next_ticket_.fetch_add(1, std::memory_order_relaxed);
        g.queue.push_back({*ticket, std::move(request), std::chrono::steady_clock::now()});
        // The first request to wait wakes the scaler, which then watches the queue itself.
        const bool wake_scaler = g.queue.size() == 1 && g.threads < g.options.max_threads;
        lock.unlock();
        if (wake_scaler) {
            scaler_wakeup_.post();
        }
        return submit_result::queued;
    }
}

bool pool::withdraw(std::size_t group_index, std::uint64_t ticket) {
    // The entry may have moved to a successor generation since it was queued.
    while (group_index != no_group) {
        group& g = group_at(group_index);
        std::lock_guard lock(g.mutex);
        // Entries expire in arrival order, so the one asked for is almost always at the front.
        auto it = std::find_if(g.queue.begin(), g.queue.end(),
                               [ticket](const queued_job& q) { return q.ticket == ticket; });
        if (it != g.queue.end()) {
            g.queue.erase(it);
            return true;
        }
        group_index = g.successor;
    }
    return false;
}

std::size_t pool::drop_abandoned() {
    std::size_t dropped = 0;
    for (std::size_t i = 0; i < group_count(); ++i) {
        group& g = group_at(i);
        std::lock_guard lock(g.mutex);
        dropped += std::erase_if(g.queue, [](const queued_job& q) {
            return q.request->sink != nullptr && q.request->sink->is_aborted();
        });
    }
    return dropped;
}

pool_stats pool::stats() const {
    pool_stats total;
    for (const auto& s : slots_) {
        const slot_state state = s->state();
        total.total += state == slot_state::reserved || state == slot_state::done ? 0 : 1;
    }
    for (std::size_t i = 0; i < group_count(); ++i) {
        const group& g = group_at(i);
        std::lock_guard lock(g.mutex);
        total.busy += g.busy;
        total.queued += g.queue.size();
    }
    return total;
}

void pool::run_slot(std::size_t index) {
    slot& s = *slots_[index];
    // The crash report runs on it, also when this thread overflowed its own stack.
    const alternate_signal_stack signal_stack;
    // Named after its slot for top -H, perf and gdb; /threads on the admin endpoint uses the
    // same index.
    pthread_setname_np(pthread_self(), ("spindle-php-" + std::to_string(index)).c_str());
    s.tid_.store(gettid(), std::memory_order_relaxed);
    run_as_batch_thread(index);
    // The runtime is held here: a retired generation's runtime lives until its last thread.
    const std::shared_ptr<slot_runtime> runtime = group_at(group_of(index)).options.runtime;
    runtime->run_thread(index, *this);
    // Whatever the runtime left behind (restarting after a failed boot, booting after a
    // refused start), the thread is over.
    if (s.state() == slot_state::restarting || s.state() == slot_state::booting ||
        s.state() == slot_state::draining) {
        s.transition(slot_state::done);
    }
    s.thread_ended_.store(true, std::memory_order_release);
}

void pool::mark_booted(std::size_t index) {
    group& g = group_at(group_of(index));
    {
        std::lock_guard lock(boot_mutex_);
        ++g.booted;
        if (index < initial_slots_ && !started_) {
            ++booted_;
        }
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
    group& g = group_at(group_of(index));
    std::unique_lock lock(g.mutex);
    // A retired generation ends its threads once their request is done; its queue moved to
    // its successor (or, with none, it serves what is queued first).
    auto must_end = [&] { return g.stopping || g.state == group_state::retiring; };
    // Counted for start() and wait_ready() once the slot can take a request: after it took
    // a queued one, or once it is on the idle stack.
    bool first_boot = false;
    if (s.state() == slot_state::booting) {
        // The runtime finished setting the thread (or its worker script) up.
        s.transition(slot_state::ready);
        s.count_boot();
        first_boot = !s.has_booted_;
        s.has_booted_ = true;
    } else if (s.state() == slot_state::busy) {
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
    if (!g.stopping && !g.queue.empty()) {
        // Requests queued while this slot was booting or restarting.
        job next = std::move(g.queue.front().request);
        g.queue.pop_front();
        s.transition(slot_state::busy);
        ++g.busy;
        if (first_boot) {
            lock.unlock();
            mark_booted(index);
        }
        return next;
    }
    g.idle.push_back(index);
    // Only a group that can shrink reads it: the others skip the clock on this hot path.
    if (g.options.max_threads > g.options.num_threads) {
        s.idle_since_ = std::chrono::steady_clock::now();
    }
    if (first_boot) {
        lock.unlock();
        mark_booted(index);
        lock.lock();
    }
    // The scaler ends a thread idle for max_idle_time: it takes it off the idle stack and
    // marks it draining, under this mutex.
    while (!s.assigned_ && !must_end() && s.state() != slot_state::draining) {
        lock.unlock();
        s.wakeup_.wait();
        lock.lock();
    }
    if (s.assigned_) {
        return std::move(s.assigned_);
    }
    if (s.state() != slot_state::draining) {
        // Stopping or retired: the queue is empty whenever a slot is idle, so nothing is left
        // behind.
        g.idle.erase(std::find(g.idle.begin(), g.idle.end(), index));
        s.transition(slot_state::draining);
    }
    return nullptr;
}

bool pool::is_booting(std::size_t index) const {
    const group& g = group_at(group_of(index));
    std::lock_guard lock(g.mutex);
    return g.state == group_state::booting;
}

scaling_stats pool::scaling() const noexcept {
    return {max_threads_, added_.load(std::memory_order_relaxed),
            removed_.load(std::memory_order_relaxed)};
}

std::size_t pool::group_count() const noexcept {
    return group_count_.load(std::memory_order_acquire);
}

std::size_t pool::group_of(std::size_t slot_index) const noexcept {
    return slot_group_[slot_index].load(std::memory_order_acquire);
}

const std::string& pool::group_name(std::size_t group_index) const noexcept {
    return group_at(group_index).options.name;
}

group_state pool::state_of(std::size_t group_index) const {
    const group& g = group_at(group_index);
    std::lock_guard lock(g.mutex);
    return g.state;
}

std::size_t pool::queued(std::size_t group_index) const {
    const group& g = group_at(group_index);
    std::lock_guard lock(g.mutex);
    return g.queue.size();
}

bool pool::restart(std::size_t index, std::chrono::milliseconds backoff, restart_reason reason) {
    slot& s = *slots_[index];
    group& g = group_at(group_of(index));
    // A script that ends in the middle of a request (a crash, max_requests) ends that request.
    s.end_request();
    s.count_restart(reason);
    std::unique_lock lock(g.mutex);
    if (s.state() == slot_state::busy) {
        --g.busy;
    }
    s.transition(slot_state::restarting);
    const auto until = std::chrono::steady_clock::now() + backoff;
    while (!g.stopping && g.state != group_state::retiring) {
        lock.unlock();
        const bool woken = s.wakeup_.wait_until(until);
        lock.lock();
        if (!woken) {
            break;
        }
    }
    if (g.stopping || g.state == group_state::retiring) {
        return false;
    }
    s.transition(slot_state::booting);
    return true;
}

void pool::fail_boot(std::size_t index, std::string reason) {
    const std::size_t group_index = group_of(index);
    group& g = group_at(group_index);
    {
        std::lock_guard lock(boot_mutex_);
        if (!started_) {
            if (startup_error_.empty()) {
                startup_error_ = reason;
            }
        } else if (g.boot_error.empty()) {
            g.boot_error = std::move(reason);
        }
    }
    boot_cv_.notify_all();
}

void pool::settle_startup(std::size_t index) {
    slot& s = *slots_[index];
    group& g = group_at(group_of(index));
    std::unique_lock lock(g.mutex);
    if (!s.has_booted_) {
        s.has_booted_ = true;
        lock.unlock();
        mark_booted(index);
    }
}

}  // namespace spindle::worker
