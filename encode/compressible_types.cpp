#include "encode/compressible_types.hpp"

#include <array>
#include <cctype>

namespace spindle::encode {
namespace {

// Caddy's default `encode` match list plus what nginx setups add for XML, fonts and icons.
constexpr std::array<std::string_view, 17> default_patterns{
    "text/*",
    "application/json",
    "application/javascript",
    "application/x-javascript",
    "application/ecmascript",
    "application/xml",
    "application/xhtml+xml",
    "application/wasm",
    "application/x-ndjson",
    "application/vnd.ms-fontobject",
    "font/ttf",
    "font/otf",
    "image/svg+xml",
    "image/x-icon",
    "image/bmp",
    "*+json",
    "*+xml",
};

char lower(char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (lower(a[i]) != lower(b[i])) {
            return false;
        }
    }
    return true;
}

bool matches(std::string_view media_type, std::string_view pattern) {
    if (pattern.ends_with('*')) {
        pattern.remove_suffix(1);
        return media_type.size() >= pattern.size() &&
               iequals(media_type.substr(0, pattern.size()), pattern);
    }
    if (pattern.starts_with('*')) {
        pattern.remove_prefix(1);
        return media_type.size() >= pattern.size() &&
               iequals(media_type.substr(media_type.size() - pattern.size()), pattern);
    }
    return iequals(media_type, pattern);
}

}  // namespace

bool is_compressible_type(std::string_view content_type, const std::vector<std::string>& patterns) {
    // "text/html; charset=utf-8" -> "text/html".
    std::string_view media_type = content_type.substr(0, content_type.find(';'));
    while (!media_type.empty() && (media_type.back() == ' ' || media_type.back() == '\t')) {
        media_type.remove_suffix(1);
    }
    while (!media_type.empty() && (media_type.front() == ' ' || media_type.front() == '\t')) {
        media_type.remove_prefix(1);
    }
    if (media_type.empty()) {
        return false;
    }
    if (patterns.empty()) {
        for (std::string_view pattern : default_patterns) {
            if (matches(media_type, pattern)) {
                return true;
            }
        }
        return false;
    }
    for (const std::string& pattern : patterns) {
        if (matches(media_type, pattern)) {
            return true;
        }
    }
    return false;
}

}  // namespace spindle::encode
