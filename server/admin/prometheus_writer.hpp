#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "worker/duration_histogram.hpp"

namespace spindle::server {

/// Label name/value pairs of one sample, in the order written.
using metric_labels = std::initializer_list<std::pair<std::string_view, std::string_view>>;

/// Writes the Prometheus text exposition format, version 0.0.4: each metric family is a
/// `# HELP` and a `# TYPE` line followed by its samples. Label values are escaped (backslash,
/// double quote, line feed), help texts too (backslash, line feed). Names are the caller's:
/// they must match [a-zA-Z_:][a-zA-Z0-9_:]*.
class prometheus_writer {
  public:
    enum class metric_type { counter, gauge, histogram };

    /// Starts a family; its samples follow.
    void family(std::string_view name, metric_type type, std::string_view help);

    /// One sample of the current family (or, for histograms, of one of its series).
    void sample(std::string_view name, metric_labels labels, double value);
    void sample(std::string_view name, metric_labels labels, std::uint64_t value);

    /// The series of a histogram family `name` for one label set: cumulative `_bucket` samples
    /// with `le` (the last "+Inf"), then `_sum` (seconds) and `_count`.
    void histogram(std::string_view name, metric_labels labels,
                   const worker::histogram_counts& counts);

    /// The text written so far.
    const std::string& text() const noexcept { return out_; }

  private:
    void write_name_and_labels(std::string_view name, metric_labels labels,
                               std::string_view le = {});

    std::string out_;
};

/// A sample value as the format writes it: integers without a fraction, "+Inf", "-Inf", "NaN",
/// other numbers in the shortest form that reads back exactly.
std::string format_metric_value(double value);

}  // namespace spindle::server
