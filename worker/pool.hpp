#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "worker/slot.hpp"
#include "worker/slot_runtime.hpp"
#include "worker/wake_signal.hpp"

namespace spindle::worker {

/// How a request submission ended.
enum class submit_result {
    assigned,  ///< an idle slot took it at once
    queued,    ///< every slot of the group is busy; it waits in the FIFO (withdraw() it on its
               ///< deadline)
    rejected,  ///< the queue is full or the pool is stopping: answer 503 now
};

/// One group of slots that serve the same kind of request: the classic scripts, or one worker
/// script (one generation of it). Requests are submitted to a group; its slots share an idle
/// stack and a queue.
struct group_options {
    std::string name;             ///< "classic" or the worker's name, for logs
    std::size_t num_threads = 1;  ///< slots in the group
    /// What its threads run; the pool keeps it alive until the group's threads ended.
    std::shared_ptr<slot_runtime> runtime;
    /// Threads the group may grow to under load (FrankenPHP's max_threads); at most
    /// num_threads (or 0): the group keeps num_threads threads.
    std::size_t max_threads = 0;
};

/// group_options::max_threads of a group bounded only by the pool's max_threads.
inline constexpr std::size_t unlimited_threads = static_cast<std::size_t>(-1);

/// Sizing of the pool; read once at construction.
struct pool_options {
    std::vector<group_options> groups;  ///< the groups start() boots
    std::size_t max_queue = 4096;       ///< per group
    /// Slots in all, at least the threads of `groups`: the spare ones host the new generation
    /// of a worker while its old one still serves (add_group()), and the threads groups grow
    /// by. 0: exactly `groups`' threads.
    std::size_t capacity = 0;
    /// Live threads of the groups that serve, at most (FrankenPHP's global max_threads): the
    /// scaler adds threads to a group whose requests wait, up to the group's max_threads and
    /// this. 0 or the initial threads: no thread is ever added.
    std::size_t max_threads = 0;
    /// A thread added under load ends once it has waited this long for a request.
    std::chrono::milliseconds max_idle_time{5000};
    /// CPUs the process may use (the cgroup quota), for the CPU rule of scaling_rule.hpp.
    std::size_t cpus = 1;
};

/// The life of a group. booting -> serving -> retiring; booting -> failed. Changed only
/// through pool::set_group_state(), checked by is_group_transition_allowed().
enum class group_state {
    booting,   ///< its threads start; takes requests into its queue, no traffic is routed yet
    serving,   ///< every thread booted
    retiring,  ///< replaced or removed: its threads finish what they run and end
    failed,    ///< a thread could not boot: its threads end, the group is never used
};

/// Lower-case name, for logs.
std::string_view to_string(group_state state) noexcept;

/// Whether a group may go from `from` to `to`.
bool is_group_transition_allowed(group_state from, group_state to) noexcept;

/// Counters for metrics and the admin view; a snapshot, taken under the lock.
struct pool_stats {
    std::size_t total = 0;  ///< threads alive (neither spare nor ended)
    std::size_t busy = 0;
    std::size_t queued = 0;
};

/// What thread autoscaling did, for metrics and the admin view.
struct scaling_stats {
    std::size_t max_threads = 0;  ///< the pool's cap; equal to its initial threads when fixed
    std::uint64_t added = 0;      ///< threads started under load since start
    std::uint64_t removed = 0;    ///< threads ended after max_idle_time without a request
};

/// The fixed array of PHP slot threads and the dispatch of requests to them.
///
/// Dispatch takes the group's most recently idle slot first (its caches are warm), else
/// appends to the group's bounded FIFO; a slot that finishes takes the oldest queued request
/// before going idle. Each group has one mutex, held only for a few pointer moves.
///
/// Autoscaling (pool_options::max_threads above the initial threads): one scaler thread,
/// woken by submit() when a group's queue stops being empty, adds threads to groups whose
/// oldest request has waited 5 ms, following scaling_rule.hpp, and ends threads that sat idle
/// for max_idle_time, down to each group's num_threads (thread_scaler.cpp). The I/O threads
/// only post a wake-up: a new thread boots PHP (or its worker script) on its own.
///
/// Threads: submit() and withdraw() run on I/O threads; start(), stop() and the destructor on
/// the control thread; next_job(), restart() and fail_startup() on slot threads, called by
/// their runtime; the scaler on its own thread.
class pool {
  public:
    explicit pool(pool_options options);
    ~pool();
    pool(const pool&) = delete;
    pool& operator=(const pool&) = delete;

    /// Starts the slot threads of the initial groups and waits until each asked for its first
    /// request (control thread). Throws std::runtime_error, after stopping the threads, when a
    /// runtime gave up with fail_boot(). Returns false, after stopping the threads, when
    /// cancel_start() came first.
    bool start();

    /// Boots a new group (a worker's new generation) on spare slots, beside the groups that
    /// serve; returns its index. Nothing is routed to it until the caller publishes the index.
    /// Throws std::runtime_error when too few slots are free. Control (or reload) thread,
    /// after start().
    std::size_t add_group(group_options options);

    /// Waits until every thread of `group` booted (the group serves; returns nullopt) or
    /// until one failed for good or `limit` passed (the group's threads end; returns why).
    /// Control (or reload) thread.
    std::optional<std::string> wait_ready(std::size_t group, std::chrono::milliseconds limit);

    /// Takes `group` out of service: its queued requests move to `successor` (another group's
    /// index, or `no_group` when the worker is gone: the group then serves its queue itself),
    /// later submissions to it go to `successor`, and its threads end once their request is
    /// done. Control (or reload) thread.
    void retire_group(std::size_t group, std::size_t successor);

    /// Interrupts the requests `group`'s threads still run (a retiring group whose grace
    /// period is over). Returns how many (any thread).
    std::size_t interrupt_busy(std::size_t group);

    /// Asks slot `index`'s PHP thread for the backtrace of its request `order.request_id`
    /// through its group's runtime (slot_runtime::request_backtrace). False, without calling
    /// `order.done`, when the index is out of range or the slot cannot take one. Any thread.
    bool request_backtrace(std::size_t index, sapi::backtrace_order order) const noexcept;

    /// Joins the threads of retired groups that ended and makes their slots spare again.
    /// Returns the slots in use now (control or reload thread).
    std::size_t reap();

    /// Index meaning "no group" (retire_group() without successor).
    static constexpr std::size_t no_group = static_cast<std::size_t>(-1);

    /// Makes a start() that is still waiting for slots to boot stop them and return false (a
    /// signal during start-up). No effect once start() has returned. Any thread.
    void cancel_start();

    /// Refuses new work and hands out no more queued requests, which stay unstarted; running
    /// requests go on. Any thread; idempotent. (The drain calls it when its grace period is
    /// over, before the I/O threads that would carry the answers stop.)
    void begin_stop();

    /// Refuses new work, lets running requests finish, joins every thread (control thread).
    /// Idempotent.
    void stop();

    /// The end of a stop whose grace period is over (control thread): refuses new work,
    /// interrupts the requests still running as a timeout would, and waits up to `limit` for
    /// every thread to end, then joins them. Returns false, joining none, when a thread is
    /// still running then: stuck where an interrupt cannot reach (C code that retries on
    /// EINTR, such as proc_close() waiting for its child). The caller must then leave the
    /// process without destroying the pool.
    bool stop_within(std::chrono::milliseconds limit);

    /// Hands a request to a slot of `group` or to its queue. On `queued`, `*ticket`
    /// identifies the entry for withdraw(); on the other outcomes it is 0, which names no
    /// entry.
    submit_result submit(std::size_t group, job request, std::uint64_t* ticket);

    /// Removes a queued request whose deadline passed. True if it was still queued (the caller
    /// answers it); false if a slot already took it.
    bool withdraw(std::size_t group, std::uint64_t ticket);

    /// Removes the queued requests whose client has gone (their sink reports an abort) and
    /// returns how many. A stop calls it while it drains: outside a stop such a request still
    /// runs, marked aborted, as under php-fpm and FrankenPHP (a webhook that ignores user
    /// aborts completes), but once the server is stopping nobody waits for it, and running it
    /// would only hold the stop up. Any thread.
    std::size_t drop_abandoned();

    /// Counters over every group (any thread).
    pool_stats stats() const;

    /// What autoscaling did (any thread).
    scaling_stats scaling() const noexcept;

    /// The slots, for read-only observation (state, requests served); spare ones are
    /// `reserved`.
    const std::vector<std::unique_ptr<slot>>& slots() const noexcept { return slots_; }

    /// Slot thread `index`: the response of its request is about to be completed; the request
    /// is counted now, before the client can read the response (and scrape the count).
    void response_done(std::size_t index) noexcept { slots_[index]->end_request(); }

    /// Slot thread `index` reports its PHP memory as its last request ended (admin /threads).
    void record_memory(std::size_t index, sapi::memory_use memory) noexcept {
        slots_[index]->record_memory(memory);
    }

    /// Slot thread `index` is ready for a request: takes the oldest queued one, or goes idle
    /// and blocks until one is assigned. Null means stop.
    job next_job(std::size_t index);

    /// Slot thread `index`'s script ended for `reason` and will start again after `backoff`:
    /// a request it was running is over, the slot leaves the busy count, waits (interrupted by
    /// stop) and boots again. False when the pool is stopping; the thread should then end.
    bool restart(std::size_t index, std::chrono::milliseconds backoff, restart_reason reason);

    /// Slot `index`'s runtime cannot boot at all (a worker failing again and again) while its
    /// group boots: during start-up, start() stops and throws `reason`; for a new generation,
    /// the group fails and wait_ready() returns `reason`. Slot thread.
    void fail_boot(std::size_t index, std::string reason);

    /// Whether slot `index`'s group is still booting (start-up, or a new generation), when a
    /// runtime that cannot boot should give up rather than retry for ever (slot thread).
    bool is_booting(std::size_t index) const;

    /// Slot `index` stops holding start() up without having booted: a worker told never to
    /// give up (max_consecutive_failures -1) keeps retrying in the background while the rest
    /// of the server serves, and its requests wait or get 503. Slot thread.
    void settle_startup(std::size_t index);

    /// Whether start() has returned successfully (any thread).
    bool has_started() const;

    /// Number of groups ever made, retired ones included; group 0 runs classic scripts.
    std::size_t group_count() const noexcept;

    /// A group's state now (any thread).
    group_state state_of(std::size_t group_index) const;

    /// The group slot `slot_index` belongs to (any thread).
    std::size_t group_of(std::size_t slot_index) const noexcept;

    /// A group's name: "classic" or the worker's (any thread).
    const std::string& group_name(std::size_t group_index) const noexcept;

    /// Requests waiting in a group's queue now (any thread; takes the group's mutex briefly).
    std::size_t queued(std::size_t group_index) const;

  private:
    struct queued_job {
        std::uint64_t ticket;
        job request;
        std::chrono::steady_clock::time_point since;  ///< queued then: the scaler's stall
    };

    struct group {
        explicit group(group_options o) : options(std::move(o)) {}
        group_options options;
        mutable std::mutex mutex;
        std::vector<std::size_t> idle;             ///< mutex: idle slot indexes, hottest on top
        std::deque<queued_job> queue;              ///< mutex: waiting requests, oldest first
        std::size_t busy = 0;                      ///< mutex
        bool stopping = false;                     ///< mutex: the pool stops or the group failed
        group_state state = group_state::booting;  ///< mutex; set_group_state()
        std::size_t successor = no_group;          ///< mutex: where a retired group's work goes
        /// mutex: live threads (num_threads, plus those the scaler added and not yet ended)
        std::size_t threads = 0;
        std::size_t booted = 0;  ///< boot_mutex_: threads that booted
        std::string boot_error;  ///< boot_mutex_: why it failed
    };

    /// Most groups a pool makes in its life: each reload that changes a worker adds one.
    static constexpr std::size_t max_groups = 4096;

    /// The one place a group's state changes; under the group's mutex.
    void set_group_state(group& g, group_state to);
    void run_slot(std::size_t index);
    void start_thread(std::size_t index);
    /// next_job() under the group's mutex: the dispatch itself.
    job take_job(std::size_t index);
    /// Hands queued requests to idle slots; under the group's mutex.
    void dispatch_queued(group& g);
    void mark_booted(std::size_t index);
    void wake_group(std::size_t group_index);
    group& group_at(std::size_t group_index) const noexcept { return *groups_[group_index]; }
    /// Clamps a group's max_threads to [num_threads, the pool's max_threads].
    void bound_growth(group_options& options) const noexcept;
    /// Up to `count` spare slots, lowest index first; under slots_mutex_.
    std::vector<std::size_t> spare_slots(std::size_t count) const;
    /// reap() under slots_mutex_; returns the slots in use and how many threads it joined.
    std::pair<std::size_t, std::size_t> reap_locked();

    // Autoscaling (thread_scaler.cpp), on the scaler thread.
    void run_scaler();
    /// Live threads of the groups that serve or boot (the count max_threads bounds).
    std::size_t live_threads() const;
    /// The longest any group that may grow has had a request waiting; nullopt: none waits.
    std::optional<std::chrono::steady_clock::duration> longest_stall(
        std::chrono::steady_clock::time_point now) const;
    /// A thread's time spent waiting for a CPU when the last window ended.
    struct thread_sample {
        pid_t tid = 0;
        std::chrono::nanoseconds waited{0};
    };
    /// Samples every live slot thread into `last` (one entry per slot) and returns, per group,
    /// the fraction of the `window` its threads spent runnable, waiting for a CPU.
    std::vector<double> sample_cpu_wait(std::vector<thread_sample>& last,
                                        std::chrono::nanoseconds window) const;
    /// Adds threads to the groups whose oldest request waited min_stall, as the process used
    /// `cpu_usage` of its CPUs over the last window and each group's threads waited `cpu_wait`
    /// of it for a CPU.
    void grow(std::chrono::steady_clock::time_point now, double cpu_usage,
              const std::vector<double>& cpu_wait);
    /// Ends the threads idle for max_idle_time beyond each group's num_threads.
    void shrink(std::chrono::steady_clock::time_point now);
    /// Joins what ended and returns its memory to the system.
    void release_ended();
    void stop_scaler();
    bool scales() const noexcept { return max_threads_ > initial_slots_; }

    const std::size_t max_queue_;
    /// Fixed size; entries below group_count_ are set, by the control thread, before the
    /// count that publishes them (release); readers load the count (acquire) or got the index
    /// from a snapshot published after it.
    std::vector<std::unique_ptr<group>> groups_;
    std::atomic<std::size_t> group_count_{0};
    std::vector<std::unique_ptr<slot>> slots_;  ///< fixed: the pool's capacity
    /// Slot index -> group index; written while the slot is reserved (no thread).
    std::unique_ptr<std::atomic<std::size_t>[]> slot_group_;
    std::atomic<std::uint64_t> next_ticket_{1};  ///< queue tickets, unique in the pool
    std::size_t initial_slots_ = 0;              ///< threads of the groups start() boots
    /// Held while slots change hands: spare -> a group (add_group(), the scaler) and ended ->
    /// spare (reap()), which joins their threads.
    std::mutex slots_mutex_;

    const std::size_t max_threads_;
    const std::chrono::milliseconds max_idle_time_;
    const std::size_t cpus_;
    std::thread scaler_;         ///< control thread starts and joins it
    wake_signal scaler_wakeup_;  ///< posted by submit() and stop
    std::atomic<std::uint64_t> added_{0};
    std::atomic<std::uint64_t> removed_{0};

    mutable std::mutex boot_mutex_;
    std::condition_variable boot_cv_;
    std::size_t booted_ = 0;        ///< boot_mutex_: initial slots that asked for a request
    std::string startup_error_;     ///< boot_mutex_
    bool started_ = false;          ///< boot_mutex_
    bool start_cancelled_ = false;  ///< boot_mutex_
    bool stopping_ = false;         ///< boot_mutex_: begin_stop() ran (ends wait_ready())
};

}  // namespace spindle::worker
