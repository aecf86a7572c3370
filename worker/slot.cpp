#include "worker/slot.hpp"

#include <algorithm>
#include <cstring>

#include <spdlog/spdlog.h>

namespace spindle::worker {

namespace {

std::int64_t steady_nanoseconds(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace

std::string_view to_string(restart_reason reason) noexcept {
    switch (reason) {
        case restart_reason::boot_failure: return "boot_failure";
        case restart_reason::crash: return "crash";
        case restart_reason::ended: return "ended";
        case restart_reason::recycled: return "recycled";
    }
    return "unknown";
}

bool slot::transition(slot_state to) noexcept {
    slot_state from = state_.load(std::memory_order_acquire);
    if (!is_transition_allowed(from, to)) {
        spdlog::get("worker")->error("slot {}: refused state change {} -> {}", index_,
                                     to_string(from), to_string(to));
        return false;
    }
    state_.store(to, std::memory_order_release);
    spdlog::get("worker")->trace("slot {}: {} -> {}", index_, to_string(from), to_string(to));
    return true;
}

void slot::begin_request(const sapi::request& request) noexcept {
    request_start_ = std::chrono::steady_clock::now();
    in_request_ = true;
    char text[running_text_capacity];
    std::size_t length = 0;
    // method, client and URI, each cut to what is left; the client (an address, 45 bytes at
    // most) always fits after a method.
    const std::string_view parts[] = {request.method, request.remote_addr, request.uri};
    for (std::size_t i = 0; i < std::size(parts); ++i) {
        if (i > 0) {
            text[length++] = '\0';
        }
        // Room stays for the separator after every part but the last.
        const std::size_t reserve = i + 1 < std::size(parts) ? 1 : 0;
        const std::size_t take =
            std::min(parts[i].size(), running_text_capacity - length - reserve);
        std::memcpy(text + length, parts[i].data(), take);
        length += take;
    }
    // A running request always has a start time above 0: the steady clock counts from boot.
    publish_running({text, length}, request.id,
                    std::max<std::int64_t>(steady_nanoseconds(request_start_), 1));
}

void slot::end_request() noexcept {
    if (!in_request_) {
        return;
    }
    in_request_ = false;
    durations_.record(std::chrono::steady_clock::now() - request_start_);
    requests_served_.fetch_add(1, std::memory_order_relaxed);
    publish_running({}, 0, 0);
}

void slot::publish_running(std::string_view text, std::uint64_t id, std::int64_t since) noexcept {
    // Single writer: only the slot thread publishes, so a plain increment is enough. The data
    // are stored with release: a reader that sees any of them sees the odd count before them.
    const std::uint32_t sequence = running_sequence_.load(std::memory_order_relaxed);
    running_sequence_.store(sequence + 1, std::memory_order_relaxed);
    running_since_.store(since, std::memory_order_release);
    running_id_.store(id, std::memory_order_release);
    running_length_.store(static_cast<std::uint32_t>(text.size()), std::memory_order_release);
    for (std::size_t word = 0; word * 8 < text.size(); ++word) {
        std::uint64_t bits = 0;
        std::memcpy(&bits, text.data() + word * 8,
                    std::min<std::size_t>(8, text.size() - word * 8));
        running_text_[word].store(bits, std::memory_order_release);
    }
    running_sequence_.store(sequence + 2, std::memory_order_release);
}

bool slot::copy_running(running_copy& out) const noexcept {
    // A signal handler may read these: lock-free atomics are plain loads, never a lock.
    static_assert(std::atomic<std::uint64_t>::is_always_lock_free);
    static_assert(std::atomic<std::int64_t>::is_always_lock_free);
    static_assert(std::atomic<std::uint32_t>::is_always_lock_free);
    // A few tries: the slot thread writes for a few nanoseconds per request, so a reader that
    // keeps colliding is looking at a slot that changes requests faster than it can read (or,
    // for the crash report, at a slot thread that stopped in the middle of a write).
    for (int attempt = 0; attempt < 8; ++attempt) {
        const std::uint32_t before = running_sequence_.load(std::memory_order_acquire);
        if (before % 2 != 0) {
            // sched_yield(2): a system call, async-signal-safe as any.
            std::this_thread::yield();
            continue;
        }
        // Acquire loads: if one of them reads a store of a write in progress, the count read
        // after them is that write's odd one (or later), and the copy is thrown away.
        const std::int64_t since = running_since_.load(std::memory_order_acquire);
        const std::uint64_t id = running_id_.load(std::memory_order_acquire);
        const std::size_t length = std::min<std::size_t>(
            running_length_.load(std::memory_order_acquire), running_text_capacity);
        for (std::size_t word = 0; word * 8 < length; ++word) {
            const std::uint64_t bits = running_text_[word].load(std::memory_order_acquire);
            std::memcpy(out.text.data() + word * 8, &bits,
                        std::min<std::size_t>(8, length - word * 8));
        }
        if (running_sequence_.load(std::memory_order_relaxed) != before) {
            continue;
        }
        if (since == 0) {
            return false;
        }
        const std::string_view all(out.text.data(), length);
        const std::size_t first = all.find('\0');
        const std::size_t second =
            first == std::string_view::npos ? first : all.find('\0', first + 1);
        out.method = all.substr(0, first);
        out.client = {};
        out.uri = {};
        if (second != std::string_view::npos) {
            out.client = all.substr(first + 1, second - first - 1);
            out.uri = all.substr(second + 1);
        }
        out.id = id;
        out.since = since;
        return true;
    }
    return false;
}

std::optional<running_request> slot::running() const {
    running_copy copy;
    if (!copy_running(copy)) {
        return std::nullopt;
    }
    running_request out;
    out.method = copy.method;
    out.client = copy.client;
    out.uri = copy.uri;
    out.id = copy.id;
    out.elapsed = std::chrono::nanoseconds(std::max<std::int64_t>(
        steady_nanoseconds(std::chrono::steady_clock::now()) - copy.since, 0));
    return out;
}

void slot::count_restart(restart_reason reason) noexcept {
    (is_crash(reason) ? crashes_ : restarts_).fetch_add(1, std::memory_order_relaxed);
}

}  // namespace spindle::worker
