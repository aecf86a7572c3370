#include "server/static/static_file.hpp"

#include <charconv>
#include <cstdio>

#include "server/http/field_lists.hpp"
#include "server/http/http_date.hpp"

namespace spindle::server {
namespace {

bool parse_number(std::string_view text, std::uint64_t& out) {
    if (text.empty()) {
        return false;
    }
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

// Weak comparison (RFC 9110 13.1.2): W/ prefixes are ignored for If-None-Match.
bool same_tag(std::string_view a, std::string_view b) {
    if (a.starts_with("W/")) {
        a.remove_prefix(2);
    }
    if (b.starts_with("W/")) {
        b.remove_prefix(2);
    }
    return a == b;
}

}  // namespace

std::string make_etag(const file_meta& meta) {
    char buffer[64];
    int n = std::snprintf(buffer, sizeof buffer, "\"%llx-%llx\"",
                          static_cast<unsigned long long>(meta.mtime),
                          static_cast<unsigned long long>(meta.size));
    return std::string(buffer, static_cast<std::size_t>(n));
}

bool is_not_modified(std::string_view if_none_match, std::string_view if_modified_since,
                     std::string_view etag, const file_meta& meta) {
    if_none_match = trim_ows(if_none_match);
    if (!if_none_match.empty()) {
        if (if_none_match == "*") {
            return true;
        }
        return find_list_element(if_none_match,
                                 [&](std::string_view tag) { return same_tag(tag, etag); });
    }
    if (auto since = parse_http_date(trim_ows(if_modified_since))) {
        return meta.mtime <= *since;
    }
    return false;
}

range_kind parse_range(std::string_view range, std::string_view if_range, std::string_view etag,
                       const file_meta& meta, byte_range& out) {
    range = trim_ows(range);
    if (!range.starts_with("bytes=")) {
        return range_kind::full;
    }
    if_range = trim_ows(if_range);
    if (!if_range.empty()) {
        // If-Range needs a strong match: an ETag equal to ours, or our exact Last-Modified date.
        if (if_range.front() == '"' || if_range.starts_with("W/")) {
            if (if_range != etag) {
                return range_kind::full;
            }
        } else {
            auto date = parse_http_date(if_range);
            if (!date || *date != meta.mtime) {
                return range_kind::full;
            }
        }
    }
    std::string_view spec = trim_ows(range.substr(6));
    if (spec.find(',') != std::string_view::npos) {
        return range_kind::full;
    }
    auto dash = spec.find('-');
    if (dash == std::string_view::npos) {
        return range_kind::full;
    }
    std::string_view first_text = trim_ows(spec.substr(0, dash));
    std::string_view last_text = trim_ows(spec.substr(dash + 1));
    std::uint64_t first = 0;
    std::uint64_t last = 0;
    if (first_text.empty()) {
        // Suffix range: the last N bytes.
        std::uint64_t suffix = 0;
        if (!parse_number(last_text, suffix)) {
            return range_kind::full;
        }
        if (suffix == 0 || meta.size == 0) {
            return range_kind::unsatisfiable;
        }
        suffix = std::min(suffix, meta.size);
        out = {meta.size - suffix, suffix};
        return range_kind::partial;
    }
    if (!parse_number(first_text, first)) {
        return range_kind::full;
    }
    if (last_text.empty()) {
        last = meta.size == 0 ? 0 : meta.size - 1;
    } else if (!parse_number(last_text, last) || last < first) {
        return range_kind::full;
    }
    if (first >= meta.size) {
        return range_kind::unsatisfiable;
    }
    last = std::min(last, meta.size - 1);
    out = {first, last - first + 1};
    return range_kind::partial;
}

}  // namespace spindle::server
