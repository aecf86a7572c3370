#include "worker/duration_histogram.hpp"

#include <algorithm>

namespace spindle::worker {

namespace {

// The bounds in nanoseconds, so record() compares integers.
constexpr std::array<std::int64_t, duration_bounds.size()> bounds_in_nanoseconds = [] {
    std::array<std::int64_t, duration_bounds.size()> out{};
    for (std::size_t i = 0; i < duration_bounds.size(); ++i) {
        out[i] = static_cast<std::int64_t>(duration_bounds[i] * 1e9 + 0.5);
    }
    return out;
}();

}  // namespace

std::uint64_t histogram_counts::count() const noexcept {
    std::uint64_t total = 0;
    for (const std::uint64_t n : buckets) {
        total += n;
    }
    return total;
}

histogram_counts& histogram_counts::operator+=(const histogram_counts& other) noexcept {
    for (std::size_t i = 0; i < buckets.size(); ++i) {
        buckets[i] += other.buckets[i];
    }
    sum_nanoseconds += other.sum_nanoseconds;
    return *this;
}

void duration_histogram::record(std::chrono::nanoseconds duration) noexcept {
    const std::int64_t nanoseconds = std::max<std::int64_t>(duration.count(), 0);
    // Prometheus buckets are "less than or equal": the first bound not below the value.
    const auto bucket = static_cast<std::size_t>(
        std::lower_bound(bounds_in_nanoseconds.begin(), bounds_in_nanoseconds.end(), nanoseconds) -
        bounds_in_nanoseconds.begin());
    buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
    sum_nanoseconds_.fetch_add(static_cast<std::uint64_t>(nanoseconds), std::memory_order_relaxed);
}

histogram_counts duration_histogram::read() const noexcept {
    histogram_counts out;
    for (std::size_t i = 0; i < buckets_.size(); ++i) {
        out.buckets[i] = buckets_[i].load(std::memory_order_relaxed);
    }
    out.sum_nanoseconds = sum_nanoseconds_.load(std::memory_order_relaxed);
    return out;
}

}  // namespace spindle::worker
