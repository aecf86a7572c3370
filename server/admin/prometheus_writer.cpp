#include "server/admin/prometheus_writer.hpp"

#include <charconv>
#include <cmath>

namespace spindle::server {

namespace {

std::string_view to_string(prometheus_writer::metric_type type) {
    switch (type) {
        case prometheus_writer::metric_type::counter: return "counter";
        case prometheus_writer::metric_type::gauge: return "gauge";
        case prometheus_writer::metric_type::histogram: return "histogram";
    }
    return "untyped";
}

void append_escaped(std::string& out, std::string_view text, bool escape_quotes) {
    for (const char c : text) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '"' && escape_quotes) {
            out += "\\\"";
        } else {
            out += c;
        }
    }
}

void append_number(std::string& out, std::uint64_t value) {
    char digits[24];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
    out.append(digits, end);
}

}  // namespace

std::string format_metric_value(double value) {
    if (std::isnan(value)) {
        return "NaN";
    }
    if (std::isinf(value)) {
        return value > 0 ? "+Inf" : "-Inf";
    }
    // The shortest form that reads back exactly, in plain decimals where that stays short
    // ("0.0005", "3", "1796224370.9"), in exponent form for the rest ("1e-09", "1e+21").
    const double magnitude = std::fabs(value);
    const bool plain = magnitude == 0 || (magnitude >= 1e-6 && magnitude < 1e21);
    char digits[64];
    const auto [end, ec] =
        plain ? std::to_chars(digits, digits + sizeof digits, value, std::chars_format::fixed)
              : std::to_chars(digits, digits + sizeof digits, value);
    return std::string(digits, end);
}

void prometheus_writer::family(std::string_view name, metric_type type, std::string_view help) {
    out_ += "# HELP ";
    out_ += name;
    out_ += ' ';
    append_escaped(out_, help, false);
    out_ += "\n# TYPE ";
    out_ += name;
    out_ += ' ';
    out_ += to_string(type);
    out_ += '\n';
}

void prometheus_writer::write_name_and_labels(std::string_view name, metric_labels labels,
                                              std::string_view le) {
    out_ += name;
    if (labels.size() == 0 && le.empty()) {
        return;
    }
    out_ += '{';
    bool first = true;
    for (const auto& [key, value] : labels) {
        if (!first) {
            out_ += ',';
        }
        first = false;
        out_ += key;
        out_ += "=\"";
        append_escaped(out_, value, true);
        out_ += '"';
    }
    if (!le.empty()) {
        out_ += first ? "le=\"" : ",le=\"";
        out_ += le;
        out_ += '"';
    }
    out_ += '}';
}

void prometheus_writer::sample(std::string_view name, metric_labels labels, double value) {
    write_name_and_labels(name, labels);
    out_ += ' ';
    out_ += format_metric_value(value);
    out_ += '\n';
}

void prometheus_writer::sample(std::string_view name, metric_labels labels, std::uint64_t value) {
    write_name_and_labels(name, labels);
    out_ += ' ';
    append_number(out_, value);
    out_ += '\n';
}

void prometheus_writer::histogram(std::string_view name, metric_labels labels,
                                  const worker::histogram_counts& counts) {
    const std::string bucket = std::string(name) + "_bucket";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < counts.buckets.size(); ++i) {
        cumulative += counts.buckets[i];
        const std::string le = i < worker::duration_bounds.size()
                                   ? format_metric_value(worker::duration_bounds[i])
                                   : std::string("+Inf");
        write_name_and_labels(bucket, labels, le);
        out_ += ' ';
        append_number(out_, cumulative);
        out_ += '\n';
    }
    sample(std::string(name) + "_sum", labels, counts.sum_seconds());
    sample(std::string(name) + "_count", labels, cumulative);
}

}  // namespace spindle::server
