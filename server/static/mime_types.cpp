#include "server/static/mime_types.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

namespace spindle::server {

namespace {

struct mime_entry {
    std::string_view extension;  ///< lower case, without the dot
    std::string_view type;
};

// Sorted by extension for the binary search below; the static_assert keeps it that way.
constexpr std::array mime_table{
    mime_entry{"avif", "image/avif"},
    mime_entry{"bmp", "image/bmp"},
    mime_entry{"css", "text/css; charset=utf-8"},
    mime_entry{"csv", "text/csv; charset=utf-8"},
    mime_entry{"eot", "application/vnd.ms-fontobject"},
    mime_entry{"gif", "image/gif"},
    mime_entry{"gz", "application/gzip"},
    mime_entry{"htm", "text/html; charset=utf-8"},
    mime_entry{"html", "text/html; charset=utf-8"},
    mime_entry{"ico", "image/x-icon"},
    mime_entry{"jpeg", "image/jpeg"},
    mime_entry{"jpg", "image/jpeg"},
    mime_entry{"js", "text/javascript; charset=utf-8"},
    mime_entry{"json", "application/json"},
    mime_entry{"map", "application/json"},
    mime_entry{"md", "text/markdown; charset=utf-8"},
    mime_entry{"mjs", "text/javascript; charset=utf-8"},
    mime_entry{"mp3", "audio/mpeg"},
    mime_entry{"mp4", "video/mp4"},
    mime_entry{"ogg", "audio/ogg"},
    mime_entry{"otf", "font/otf"},
    mime_entry{"pdf", "application/pdf"},
    mime_entry{"png", "image/png"},
    mime_entry{"svg", "image/svg+xml"},
    mime_entry{"tar", "application/x-tar"},
    mime_entry{"tif", "image/tiff"},
    mime_entry{"tiff", "image/tiff"},
    mime_entry{"ttf", "font/ttf"},
    mime_entry{"txt", "text/plain; charset=utf-8"},
    mime_entry{"wasm", "application/wasm"},
    mime_entry{"wav", "audio/wav"},
    mime_entry{"webm", "video/webm"},
    mime_entry{"webmanifest", "application/manifest+json"},
    mime_entry{"webp", "image/webp"},
    mime_entry{"woff", "font/woff"},
    mime_entry{"woff2", "font/woff2"},
    mime_entry{"xml", "text/xml; charset=utf-8"},
    mime_entry{"zip", "application/zip"},
};

constexpr bool extension_less(const mime_entry& a, const mime_entry& b) {
    return a.extension < b.extension;
}

static_assert(std::is_sorted(mime_table.begin(), mime_table.end(), extension_less));

constexpr std::size_t longest_extension =
    std::max_element(mime_table.begin(), mime_table.end(),
                     [](const mime_entry& a, const mime_entry& b) {
                         return a.extension.size() < b.extension.size();
                     })
        ->extension.size();

constexpr std::string_view unknown_type = "application/octet-stream";

}  // namespace

std::string_view mime_type_for(std::string_view path) {
    const std::string_view name = path.substr(path.rfind('/') + 1);
    const std::size_t dot = name.rfind('.');
    if (dot == std::string_view::npos) {
        return unknown_type;
    }
    const std::string_view extension = name.substr(dot + 1);
    if (extension.size() > longest_extension) {
        return unknown_type;
    }
    // Lower-case into a stack buffer: the lookup must not allocate.
    std::array<char, longest_extension> buffer{};
    std::transform(extension.begin(), extension.end(), buffer.begin(), [](char c) {
        return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    });
    const mime_entry key{std::string_view(buffer.data(), extension.size()), {}};
    const auto found = std::lower_bound(mime_table.begin(), mime_table.end(), key, extension_less);
    if (found == mime_table.end() || found->extension != key.extension) {
        return unknown_type;
    }
    return found->type;
}

}  // namespace spindle::server
