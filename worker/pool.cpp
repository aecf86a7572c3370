#include "worker/pool.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

namespace spindle::worker {

pool::pool(slot_runtime& runtime, pool_options options) : runtime_(runtime), options_(options) {
    slots_.reserve(options_.num_threads);
    for (std::size_t i = 0; i < options_.num_threads; ++i) {
        slots_.push_back(std::make_unique<slot>(i));
    }
    idle_.reserve(options_.num_threads);
}

pool::~pool() {
    stop();
}

void pool::start() {
    for (auto& s : slots_) {
        s->transition(slot_state::booting);
        s->thread_ = std::thread([this, index = s->index()] { run_slot(index); });
    }
    std::unique_lock lock(mutex_);
    booted_cv_.wait(lock, [this] { return booted_ == slots_.size(); });
    spdlog::get("worker")->info("{} PHP threads ready", slots_.size());
}

void pool::stop() {
    {
        std::lock_guard lock(mutex_);
        if (stopping_) {
            return;
        }
        stopping_ = true;
    }
    for (auto& s : slots_) {
        s->wakeup_.notify_all();
    }
    for (auto& s : slots_) {
        if (s->thread_.joinable()) {
            s->thread_.join();
        }
    }
}

submit_result pool::submit(job request, std::uint64_t* ticket) {
    std::unique_lock lock(mutex_);
    if (stopping_) {
        return submit_result::rejected;
    }
    if (!idle_.empty()) {
        slot& s = *slots_[idle_.back()];
        idle_.pop_back();
        s.assigned_ = std::move(request);
        s.transition(slot_state::busy);
        ++busy_;
        lock.unlock();
        s.wakeup_.notify_one();
        return submit_result::assigned;
    }
    if (queue_.size() >= options_.max_queue) {
        return submit_result::rejected;
    }
    *ticket = next_ticket_++;
    queue_.push_back({*ticket, std::move(request)});
    return submit_result::queued;
}

bool pool::withdraw(std::uint64_t ticket) {
    std::lock_guard lock(mutex_);
    // Entries expire in arrival order, so the one asked for is almost always at the front.
    auto it = std::find_if(queue_.begin(), queue_.end(),
                           [ticket](const queued_job& q) { return q.ticket == ticket; });
    if (it == queue_.end()) {
        return false;
    }
    queue_.erase(it);
    return true;
}

pool_stats pool::stats() const {
    std::lock_guard lock(mutex_);
    return {slots_.size(), busy_, queue_.size()};
}

void pool::run_slot(std::size_t index) {
    slot& s = *slots_[index];
    runtime_.run_thread(index, [this, &s] { return next_job(s); });
    s.transition(slot_state::done);
}

job pool::next_job(slot& s) {
    std::unique_lock lock(mutex_);
    if (s.state() == slot_state::booting) {
        // First call: the runtime finished setting the thread up.
        s.transition(slot_state::ready);
        idle_.push_back(s.index());
        ++booted_;
        booted_cv_.notify_all();
    } else if (s.state() == slot_state::busy) {
        s.requests_served_.fetch_add(1, std::memory_order_relaxed);
        // Oldest waiting request first; the slot stays busy and warm.
        if (!queue_.empty()) {
            job next = std::move(queue_.front().request);
            queue_.pop_front();
            return next;
        }
        --busy_;
        s.transition(slot_state::ready);
        idle_.push_back(s.index());
    }
    s.wakeup_.wait(lock, [&] { return s.assigned_ || stopping_; });
    if (s.assigned_) {
        return std::move(s.assigned_);
    }
    // Stopping: the queue is empty whenever a slot is idle, so nothing is left behind.
    idle_.erase(std::find(idle_.begin(), idle_.end(), s.index()));
    s.transition(slot_state::draining);
    return nullptr;
}

}  // namespace spindle::worker
