#include "worker/pool.hpp"

#include "worker/scaling_rule.hpp"
#include "worker/worker_runtime.hpp"

#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace spindle::worker {
namespace {

using namespace std::chrono_literals;

// A runtime without PHP: records which slot ran which request, and blocks each request until
// the test releases it.
class fake_runtime final : public slot_runtime {
  public:
    void run_thread(std::size_t index, pool& host) override {
        while (job j = host.next_job(index)) {
            std::unique_lock lock(mutex_);
            runs_.push_back({index, j->id});
            changed_.notify_all();
            changed_.wait(lock, [&] { return released_ > 0 || release_all_; });
            if (!release_all_) {
                --released_;
            }
        }
    }
    void release_one() {
        std::lock_guard lock(mutex_);
        ++released_;
        changed_.notify_all();
    }
    void release_all() {
        std::lock_guard lock(mutex_);
        release_all_ = true;
        changed_.notify_all();
    }
    // Waits until `count` requests have started; returns them as (slot, request id).
    std::vector<std::pair<std::size_t, std::uint64_t>> wait_runs(std::size_t count) {
        std::unique_lock lock(mutex_);
        bool ok = changed_.wait_for(lock, 5s, [&] { return runs_.size() >= count; });
        EXPECT_TRUE(ok) << "only " << runs_.size() << " of " << count << " requests started";
        return runs_;
    }

  private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::pair<std::size_t, std::uint64_t>> runs_;
    int released_ = 0;
    bool release_all_ = false;
};

// A pool made movable-free: constructed in place by the caller through guaranteed elision.
pool make_pool(slot_runtime& runtime, std::size_t threads, std::size_t max_queue) {
    return pool(pool_options{{group_options{"classic", threads, unowned(runtime)}}, max_queue});
}

job make_job(std::uint64_t id) {
    auto r = std::make_shared<sapi::request>();
    r->id = id;
    return r;
}

// A sink that only says whether its client left.
class client_sink final : public sapi::output_sink {
  public:
    void send_informational(int, const std::vector<sapi::header>&) noexcept override {}
    void send_head(int, std::string_view, std::vector<sapi::header>) noexcept override {}
    bool write(std::string_view) noexcept override { return !gone; }
    bool flush() noexcept override { return !gone; }
    void finish(bool) noexcept override {}
    bool is_aborted() const noexcept override { return gone; }
    bool gone = false;
};

job make_job(std::uint64_t id, client_sink& sink) {
    job r = make_job(id);
    r->sink = &sink;
    return r;
}

class PoolTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        if (!spdlog::get("worker")) {
            spdlog::register_logger(std::make_shared<spdlog::logger>(
                "worker", std::make_shared<spdlog::sinks::null_sink_mt>()));
        }
    }
    // Waits until the pool reports `busy` busy slots (a slot counts as busy on assignment, but
    // it becomes ready only after the runtime returns to next_job).
    static void wait_idle(pool& p) {
        for (int i = 0; i < 500 && p.stats().busy > 0; ++i) {
            std::this_thread::sleep_for(2ms);
        }
        ASSERT_EQ(p.stats().busy, 0u);
    }
};

TEST_F(PoolTest, StartBringsEverySlotToReady) {
    fake_runtime runtime;
    pool p = make_pool(runtime, 3, 8);
    p.start();
    for (const auto& s : p.slots()) {
        EXPECT_EQ(s->state(), slot_state::ready);
    }
    p.stop();
    for (const auto& s : p.slots()) {
        EXPECT_EQ(s->state(), slot_state::done);
    }
}

TEST_F(PoolTest, MostRecentlyIdleSlotIsUsedFirst) {
    fake_runtime runtime;
    pool p = make_pool(runtime, 3, 8);
    p.start();
    std::uint64_t ticket = 0;
    ASSERT_EQ(p.submit(0, make_job(1), &ticket), submit_result::assigned);
    auto first = runtime.wait_runs(1)[0].first;
    runtime.release_one();
    wait_idle(p);
    // The slot that just finished is on top of the idle stack: it gets the next request.
    ASSERT_EQ(p.submit(0, make_job(2), &ticket), submit_result::assigned);
    EXPECT_EQ(runtime.wait_runs(2)[1].first, first);
    runtime.release_all();
    p.stop();
}

TEST_F(PoolTest, QueuesInArrivalOrderWhenAllBusyAndRejectsWhenFull) {
    fake_runtime runtime;
    pool p = make_pool(runtime, 1, 2);
    p.start();
    std::uint64_t ticket = 0;
    ASSERT_EQ(p.submit(0, make_job(1), &ticket), submit_result::assigned);
    runtime.wait_runs(1);
    EXPECT_EQ(p.submit(0, make_job(2), &ticket), submit_result::queued);
    EXPECT_EQ(p.submit(0, make_job(3), &ticket), submit_result::queued);
    EXPECT_EQ(p.submit(0, make_job(4), &ticket), submit_result::rejected);
    EXPECT_EQ(p.stats().queued, 2u);
    runtime.release_one();
    runtime.release_one();
    auto runs = runtime.wait_runs(3);
    EXPECT_EQ(runs[1].second, 2u);
    EXPECT_EQ(runs[2].second, 3u);
    runtime.release_all();
    p.stop();
    EXPECT_EQ(p.slots()[0]->requests_served(), 3u);
}

TEST_F(PoolTest, WithdrawTakesBackOnlyStillQueuedRequests) {
    fake_runtime runtime;
    pool p = make_pool(runtime, 1, 4);
    p.start();
    std::uint64_t ticket = 0;
    std::uint64_t second = 0;
    std::uint64_t third = 0;
    ASSERT_EQ(p.submit(0, make_job(1), &ticket), submit_result::assigned);
    runtime.wait_runs(1);
    ASSERT_EQ(p.submit(0, make_job(2), &second), submit_result::queued);
    ASSERT_EQ(p.submit(0, make_job(3), &third), submit_result::queued);
    EXPECT_NE(second, third);
    EXPECT_TRUE(p.withdraw(0, second));
    EXPECT_FALSE(p.withdraw(0, second));
    runtime.release_one();
    // Request 3 runs next: 2 was withdrawn and must never run.
    auto runs = runtime.wait_runs(2);
    EXPECT_EQ(runs[1].second, 3u);
    EXPECT_FALSE(p.withdraw(0, third));
    runtime.release_all();
    p.stop();
    EXPECT_EQ(runtime.wait_runs(2).size(), 2u);
}

TEST_F(PoolTest, DropAbandonedRemovesOnlyQueuedRequestsWhoseClientLeft) {
    fake_runtime runtime;
    pool p = make_pool(runtime, 1, 8);
    p.start();
    client_sink running, stays, left, also_left;
    std::uint64_t ticket = 0;
    ASSERT_EQ(p.submit(0, make_job(1, running), &ticket), submit_result::assigned);
    runtime.wait_runs(1);
    ASSERT_EQ(p.submit(0, make_job(2, left), &ticket), submit_result::queued);
    ASSERT_EQ(p.submit(0, make_job(3, stays), &ticket), submit_result::queued);
    ASSERT_EQ(p.submit(0, make_job(4, also_left), &ticket), submit_result::queued);
    left.gone = also_left.gone = true;
    // The running request's client leaving is not the queue's business.
    running.gone = true;
    EXPECT_EQ(p.drop_abandoned(), 2u);
    EXPECT_EQ(p.drop_abandoned(), 0u);
    EXPECT_EQ(p.stats().queued, 1u);
    runtime.release_one();
    auto runs = runtime.wait_runs(2);
    EXPECT_EQ(runs[1].second, 3u);
    runtime.release_all();
    p.stop();
    EXPECT_EQ(runtime.wait_runs(2).size(), 2u);
}

TEST_F(PoolTest, StopLetsRunningWorkFinishButStartsNoQueuedWork) {
    // Once the stop begins, a slot whose request ends takes nothing more from the queue: the
    // I/O threads that would carry the answer are stopping (the drain served the queue before).
    fake_runtime runtime;
    pool p = make_pool(runtime, 1, 4);
    p.start();
    std::uint64_t ticket = 0;
    ASSERT_EQ(p.submit(0, make_job(1), &ticket), submit_result::assigned);
    runtime.wait_runs(1);
    ASSERT_EQ(p.submit(0, make_job(2), &ticket), submit_result::queued);
    p.begin_stop();
    std::thread stopper([&] { p.stop(); });
    runtime.release_all();
    stopper.join();
    EXPECT_EQ(runtime.wait_runs(1).size(), 1u);
    EXPECT_EQ(p.submit(0, make_job(3), &ticket), submit_result::rejected);
}

TEST_F(PoolTest, SubmitWritesTheTicketOnEveryOutcome) {
    // A ticket left from an earlier queued request would name another request's entry.
    fake_runtime runtime;
    pool p = make_pool(runtime, 1, 1);
    p.start();
    std::uint64_t ticket = 0;
    ASSERT_EQ(p.submit(0, make_job(1), &ticket), submit_result::assigned);
    runtime.wait_runs(1);
    ASSERT_EQ(p.submit(0, make_job(2), &ticket), submit_result::queued);
    EXPECT_NE(ticket, 0u);
    EXPECT_EQ(p.submit(0, make_job(3), &ticket), submit_result::rejected);
    EXPECT_EQ(ticket, 0u);
    runtime.release_all();
    runtime.wait_runs(2);
    // The queue drained: the next request is assigned, and its ticket names nothing.
    ticket = 99;
    for (int i = 0; i < 1000 && p.stats().busy != 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_EQ(p.submit(0, make_job(4), &ticket), submit_result::assigned);
    EXPECT_EQ(ticket, 0u);
    EXPECT_FALSE(p.withdraw(0, ticket));
    p.stop();
}

TEST_F(PoolTest, ManyThreadsSubmittingConcurrentlyLoseNothing) {
    fake_runtime runtime;
    runtime.release_all();
    pool p = make_pool(runtime, 4, 100000);
    p.start();
    std::atomic<int> accepted{0};
    std::vector<std::thread> submitters;
    for (int t = 0; t < 4; ++t) {
        submitters.emplace_back([&, t] {
            for (int i = 0; i < 500; ++i) {
                std::uint64_t ticket = 0;
                auto result =
                    p.submit(0, make_job(static_cast<std::uint64_t>(t * 1000 + i)), &ticket);
                if (result != submit_result::rejected) {
                    ++accepted;
                }
            }
        });
    }
    for (auto& t : submitters) {
        t.join();
    }
    EXPECT_EQ(accepted.load(), 2000);
    // stop() starts no queued request: let the queue drain first, as the server's drain does.
    runtime.wait_runs(2000);
    p.stop();
    std::uint64_t served = 0;
    for (const auto& s : p.slots()) {
        served += s->requests_served();
    }
    EXPECT_EQ(served, 2000u);
}

// Boots fail (the runtime asks for a restart instead of a request) until `failures` have
// happened, then the runtime serves normally.
class failing_boot_runtime final : public slot_runtime {
  public:
    explicit failing_boot_runtime(unsigned failures, unsigned give_up_after)
        : failures_(failures), give_up_after_(give_up_after) {}
    void run_thread(std::size_t index, pool& host) override {
        for (unsigned attempt = 1;; ++attempt) {
            if (attempt > failures_) {
                while (host.next_job(index)) {
                }
                return;
            }
            attempts_.fetch_add(1);
            if (attempt >= give_up_after_ && host.is_booting(index)) {
                host.fail_boot(index, "boot failed " + std::to_string(attempt) + " times");
                return;
            }
            if (!host.restart(index, std::chrono::milliseconds(1), restart_reason::boot_failure)) {
                return;
            }
        }
    }
    std::atomic<unsigned> attempts_{0};

  private:
    unsigned failures_;
    unsigned give_up_after_;
};

TEST_F(PoolTest, StartSucceedsOnceAFailingBootRecovers) {
    failing_boot_runtime runtime(3, 10);
    pool p = make_pool(runtime, 1, 4);
    p.start();
    EXPECT_TRUE(p.has_started());
    EXPECT_EQ(runtime.attempts_.load(), 3u);
    EXPECT_EQ(p.slots()[0]->state(), slot_state::ready);
    p.stop();
}

TEST_F(PoolTest, StartThrowsWhenBootKeepsFailing) {
    failing_boot_runtime runtime(100, 4);
    pool p = make_pool(runtime, 2, 4);
    EXPECT_THROW(p.start(), std::runtime_error);
    EXPECT_FALSE(p.has_started());
    for (const auto& s : p.slots()) {
        EXPECT_EQ(s->state(), slot_state::done);
    }
}

TEST_F(PoolTest, GroupsDispatchIndependently) {
    fake_runtime classic;
    fake_runtime worker;
    pool p(pool_options{
        {group_options{"classic", 1, unowned(classic)}, group_options{"w", 1, unowned(worker)}},
        4});
    p.start();
    std::uint64_t ticket = 0;
    ASSERT_EQ(p.submit(1, make_job(7), &ticket), submit_result::assigned);
    auto runs = worker.wait_runs(1);
    EXPECT_EQ(runs[0].first, 1u);  // slot 1 belongs to the second group
    // The worker group is busy, the classic group is not.
    EXPECT_EQ(p.submit(1, make_job(8), &ticket), submit_result::queued);
    ASSERT_EQ(p.submit(0, make_job(9), &ticket), submit_result::assigned);
    EXPECT_EQ(classic.wait_runs(1)[0].first, 0u);
    classic.release_all();
    worker.release_all();
    p.stop();
}

TEST(WorkerBackoff, GrowsFromTheFloorAndIsCapped) {
    EXPECT_EQ(backoff_after(1), first_backoff);
    EXPECT_EQ(backoff_after(2), 2 * first_backoff);
    EXPECT_EQ(backoff_after(3), 4 * first_backoff);
    EXPECT_GE(first_backoff, std::chrono::milliseconds(100));
    EXPECT_EQ(backoff_after(1000), max_backoff);
    for (unsigned i = 1; i < 50; ++i) {
        EXPECT_LE(backoff_after(i), backoff_after(i + 1));
    }
}

// --- worker generations ---------------------------------------------------------------------

TEST(GroupState, GenerationsMoveForwardOnly) {
    EXPECT_TRUE(is_group_transition_allowed(group_state::booting, group_state::serving));
    EXPECT_TRUE(is_group_transition_allowed(group_state::booting, group_state::failed));
    EXPECT_TRUE(is_group_transition_allowed(group_state::serving, group_state::retiring));
    EXPECT_TRUE(is_group_transition_allowed(group_state::failed, group_state::retiring));
    EXPECT_FALSE(is_group_transition_allowed(group_state::serving, group_state::booting));
    EXPECT_FALSE(is_group_transition_allowed(group_state::retiring, group_state::serving));
    EXPECT_FALSE(is_group_transition_allowed(group_state::failed, group_state::serving));
    EXPECT_EQ(to_string(group_state::retiring), "retiring");
}

TEST_F(PoolTest, NewGenerationBootsOnSpareSlotsBesideTheOldOne) {
    fake_runtime classic;
    fake_runtime old_generation;
    fake_runtime new_generation;
    pool p(pool_options{{group_options{"classic", 1, unowned(classic)},
                         group_options{"w", 1, unowned(old_generation)}},
                        4,
                        4});
    ASSERT_TRUE(p.start());
    EXPECT_EQ(p.slots()[2]->state(), slot_state::reserved);
    const std::size_t next = p.add_group(group_options{"w", 2, unowned(new_generation)});
    EXPECT_EQ(next, 2u);
    EXPECT_EQ(p.wait_ready(next, 5s), std::nullopt);
    EXPECT_EQ(p.state_of(next), group_state::serving);
    EXPECT_EQ(p.group_of(2), next);
    EXPECT_EQ(p.group_of(3), next);
    // The old generation still serves what is routed to it.
    std::uint64_t ticket = 0;
    ASSERT_EQ(p.submit(1, make_job(1), &ticket), submit_result::assigned);
    EXPECT_EQ(old_generation.wait_runs(1)[0].first, 1u);
    old_generation.release_all();
    new_generation.release_all();
    classic.release_all();
    p.stop();
}

TEST_F(PoolTest, RetiredGenerationHandsItsQueueAndNewWorkToItsSuccessor) {
    fake_runtime classic;
    fake_runtime old_generation;
    fake_runtime new_generation;
    pool p(pool_options{{group_options{"classic", 1, unowned(classic)},
                         group_options{"w", 1, unowned(old_generation)}},
                        4,
                        4});
    ASSERT_TRUE(p.start());
    std::uint64_t ticket = 0;
    ASSERT_EQ(p.submit(1, make_job(1), &ticket), submit_result::assigned);
    old_generation.wait_runs(1);
    // The only old thread is busy: the next request waits in the old generation's queue.
    std::uint64_t queued_ticket = 0;
    ASSERT_EQ(p.submit(1, make_job(2), &queued_ticket), submit_result::queued);
    const std::size_t next = p.add_group(group_options{"w", 1, unowned(new_generation)});
    ASSERT_EQ(p.wait_ready(next, 5s), std::nullopt);
    p.retire_group(1, next);
    // The queued request runs on the new generation at once, not after the old one's.
    auto runs = new_generation.wait_runs(1);
    EXPECT_EQ(runs[0].second, 2u);
    EXPECT_EQ(p.group_of(runs[0].first), next);
    // A request routed by an old configuration to the retired group reaches the successor.
    new_generation.release_one();
    ASSERT_NE(p.submit(1, make_job(3), &ticket), submit_result::rejected);
    EXPECT_EQ(new_generation.wait_runs(2)[1].second, 3u);
    new_generation.release_all();
    // The old thread finishes its request, then ends; its slot becomes spare again.
    old_generation.release_all();
    for (int i = 0; i < 500 && p.slots()[1]->state() != slot_state::done; ++i) {
        std::this_thread::sleep_for(2ms);
    }
    EXPECT_EQ(p.slots()[1]->state(), slot_state::done);
    EXPECT_EQ(p.reap(), 2u);
    EXPECT_EQ(p.slots()[1]->state(), slot_state::reserved);
    classic.release_all();
    p.stop();
}

TEST_F(PoolTest, WithdrawFindsAnEntryThatMovedToTheSuccessor) {
    fake_runtime classic;
    fake_runtime old_generation;
    fake_runtime new_generation;
    pool p(pool_options{{group_options{"classic", 1, unowned(classic)},
                         group_options{"w", 1, unowned(old_generation)}},
                        4,
                        4});
    ASSERT_TRUE(p.start());
    std::uint64_t ticket = 0;
    ASSERT_EQ(p.submit(1, make_job(1), &ticket), submit_result::assigned);
    old_generation.wait_runs(1);
    const std::size_t next = p.add_group(group_options{"w", 1, unowned(new_generation)});
    ASSERT_EQ(p.wait_ready(next, 5s), std::nullopt);
    std::uint64_t blocker = 0;
    // Occupy the new generation's thread, so that what moves there stays queued.
    ASSERT_EQ(p.submit(next, make_job(2), &blocker), submit_result::assigned);
    new_generation.wait_runs(1);
    std::uint64_t queued_ticket = 0;
    ASSERT_EQ(p.submit(1, make_job(3), &queued_ticket), submit_result::queued);
    p.retire_group(1, next);
    EXPECT_EQ(p.queued(next), 1u);
    EXPECT_TRUE(p.withdraw(1, queued_ticket));
    EXPECT_EQ(p.queued(next), 0u);
    old_generation.release_all();
    new_generation.release_all();
    classic.release_all();
    p.stop();
}

TEST_F(PoolTest, GenerationThatCannotBootFailsAndTheOldOneServes) {
    fake_runtime classic;
    fake_runtime old_generation;
    failing_boot_runtime broken(100, 3);
    pool p(pool_options{{group_options{"classic", 1, unowned(classic)},
                         group_options{"w", 1, unowned(old_generation)}},
                        4,
                        4});
    ASSERT_TRUE(p.start());
    const std::size_t next = p.add_group(group_options{"w", 1, unowned(broken)});
    const std::optional<std::string> error = p.wait_ready(next, 5s);
    ASSERT_TRUE(error.has_value());
    EXPECT_EQ(*error, "boot failed 3 times");
    EXPECT_EQ(p.state_of(next), group_state::failed);
    std::uint64_t ticket = 0;
    ASSERT_EQ(p.submit(1, make_job(1), &ticket), submit_result::assigned);
    EXPECT_EQ(old_generation.wait_runs(1)[0].first, 1u);
    p.retire_group(next, pool::no_group);
    old_generation.release_all();
    classic.release_all();
    p.stop();
}

TEST_F(PoolTest, AddGroupRefusesWhenTooFewSlotsAreSpare) {
    fake_runtime classic;
    pool p(pool_options{{group_options{"classic", 1, unowned(classic)}}, 4, 2});
    ASSERT_TRUE(p.start());
    EXPECT_THROW(p.add_group(group_options{"w", 2, unowned(classic)}), std::runtime_error);
    classic.release_all();
    p.stop();
}

// Polls `done` for up to 5 s.
template <class Condition>
bool eventually(Condition done) {
    for (int i = 0; i < 500; ++i) {
        if (done()) {
            return true;
        }
        std::this_thread::sleep_for(10ms);
    }
    return done();
}

TEST_F(PoolTest, WaitingRequestsGrowTheGroupAndIdleThreadsEnd) {
    fake_runtime runtime;
    pool_options options{{group_options{"classic", 1, unowned(runtime), 4}}, 16};
    options.max_threads = 4;
    options.max_idle_time = 200ms;
    options.cpus = 64;  // the CPU stays far from busy: the rule is tested on its own below
    pool p(std::move(options));
    ASSERT_TRUE(p.start());
    std::uint64_t ticket = 0;
    ASSERT_EQ(p.submit(0, make_job(1), &ticket), submit_result::assigned);
    for (std::uint64_t id = 2; id <= 6; ++id) {
        ASSERT_EQ(p.submit(0, make_job(id), &ticket), submit_result::queued);
    }
    // The queued requests start on added threads, up to max_threads: four run at once.
    const auto runs = runtime.wait_runs(4);
    std::set<std::size_t> slots;
    for (const auto& run : runs) {
        slots.insert(run.first);
    }
    EXPECT_EQ(slots.size(), 4u);
    EXPECT_EQ(p.stats().total, 4u);
    EXPECT_EQ(p.stats().queued, 2u);
    EXPECT_EQ(p.scaling().added, 3u);
    EXPECT_EQ(p.scaling().max_threads, 4u);

    // Once idle for max_idle_time, the added threads end: back to num_threads.
    runtime.release_all();
    EXPECT_TRUE(eventually([&] { return p.stats().total == 1 && p.stats().busy == 0; }))
        << p.stats().total << " threads";
    EXPECT_EQ(p.scaling().removed, 3u);
    // The remaining thread still serves, and the group grows again under a new burst.
    ASSERT_EQ(p.submit(0, make_job(7), &ticket), submit_result::assigned);
    EXPECT_TRUE(eventually([&] { return p.stats().busy == 0; }));
    p.stop();
}

// A request that keeps CPUs busy until released (the fake runtime's requests only wait).
class spinning_runtime final : public slot_runtime {
  public:
    void run_thread(std::size_t index, pool& host) override {
        while (job j = host.next_job(index)) {
            started.fetch_add(1);
            while (!released.load()) {
                spin();
            }
        }
    }
    static void spin() {
        volatile std::uint64_t x = 0;
        for (int i = 0; i < 10000; ++i) {
            x = x + 1;
        }
    }
    std::atomic<bool> released{false};
    std::atomic<int> started{0};
};

TEST_F(PoolTest, NoThreadIsAddedWhileTheCpusAreBusy) {
    spinning_runtime runtime;
    pool_options options{{group_options{"classic", 1, unowned(runtime), 8}}, 16};
    options.max_threads = 8;
    options.cpus = 1;
    pool p(std::move(options));
    ASSERT_TRUE(p.start());
    // Two more spinning threads: the process uses over one CPU, or, on a crowded machine, its
    // threads queue for the CPU.
    std::atomic<bool> done{false};
    std::vector<std::thread> spinners;
    for (int i = 0; i < 2; ++i) {
        spinners.emplace_back([&] {
            while (!done.load()) {
                spinning_runtime::spin();
            }
        });
    }
    std::uint64_t ticket = 0;
    ASSERT_EQ(p.submit(0, make_job(1), &ticket), submit_result::assigned);
    for (std::uint64_t id = 2; id <= 5; ++id) {
        ASSERT_EQ(p.submit(0, make_job(id), &ticket), submit_result::queued);
    }
    // Several CPU windows pass with requests waiting: the group keeps its one thread.
    std::this_thread::sleep_for(600ms);
    EXPECT_EQ(p.scaling().added, 0u);
    EXPECT_EQ(p.stats().total, 1u);
    EXPECT_EQ(runtime.started.load(), 1);
    done = true;
    for (std::thread& t : spinners) {
        t.join();
    }
    runtime.released = true;
    EXPECT_TRUE(eventually([&] { return p.stats().queued == 0 && p.stats().busy == 0; }));
    p.stop();
}

TEST_F(PoolTest, AGroupWithoutMaxThreadsNeverGrows) {
    fake_runtime runtime;
    pool_options options{{group_options{"classic", 1, unowned(runtime)}}, 16};
    options.max_threads = 4;  // the pool may grow, this group may not
    options.cpus = 64;
    pool p(std::move(options));
    ASSERT_TRUE(p.start());
    std::uint64_t ticket = 0;
    ASSERT_EQ(p.submit(0, make_job(1), &ticket), submit_result::assigned);
    ASSERT_EQ(p.submit(0, make_job(2), &ticket), submit_result::queued);
    std::this_thread::sleep_for(300ms);
    EXPECT_EQ(p.scaling().added, 0u);
    EXPECT_EQ(p.stats().queued, 1u);
    runtime.release_all();
    EXPECT_EQ(runtime.wait_runs(2).size(), 2u);
    p.stop();
}

TEST(ScalingRule, AddsWhatWaitsAtMostDoublingWithinTheCaps) {
    growth_inputs in;
    in.queued = 30;
    in.threads = 4;
    in.max_threads = 32;
    in.pool_room = 28;
    in.cpu_usage = 0.1;
    EXPECT_EQ(threads_to_add(in), 4u);  // doubling
    in.threads = 16;
    EXPECT_EQ(threads_to_add(in), 16u);
    in.threads = 30;
    EXPECT_EQ(threads_to_add(in), 2u);  // the group's cap
    in.threads = 4;
    in.pool_room = 3;
    EXPECT_EQ(threads_to_add(in), 3u);  // the pool's cap
    in.pool_room = 28;
    in.queued = 6;
    in.booting = 4;
    EXPECT_EQ(threads_to_add(in), 2u);  // booting threads will take four of the six
    in.booting = 6;
    EXPECT_EQ(threads_to_add(in), 0u);
    in.booting = 0;
    in.cpu_usage = 0.8;
    EXPECT_EQ(threads_to_add(in), 0u);  // the process keeps its CPUs busy
    in.cpu_usage = 0.3;
    in.cpu_wait = 0.25;
    EXPECT_EQ(threads_to_add(in), 0u);  // its threads queue for the CPU (others keep it busy)
    in.cpu_wait = 0.05;
    EXPECT_EQ(threads_to_add(in), 4u);
    in.cpu_usage = 0.79;
    in.threads = 0;
    EXPECT_EQ(threads_to_add(in), 1u);
}

}  // namespace
}  // namespace spindle::worker
