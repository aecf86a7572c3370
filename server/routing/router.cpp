#include "server/routing/router.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <boost/beast/core/string.hpp>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

#include "server/routing/path_matcher.hpp"

namespace spindle::server {

namespace {

enum class path_error { none, malformed, nul_byte, escapes_root };

struct normalized_path {
    std::string path;
    path_error error = path_error::none;
};

int hex_value(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

normalized_path normalize(std::string_view raw) {
    if (raw.empty() || raw.front() != '/') {
        return {{}, path_error::malformed};
    }
    // Decode first, then resolve dot segments, so "%2e%2e" cannot slip past the ".." check.
    std::string decoded;
    decoded.reserve(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
        char c = raw[i];
        if (c == '%') {
            if (raw.size() - i < 3) {
                return {{}, path_error::malformed};
            }
            const int high = hex_value(raw[i + 1]);
            const int low = hex_value(raw[i + 2]);
            if (high < 0 || low < 0) {
                return {{}, path_error::malformed};
            }
            c = static_cast<char>(high * 16 + low);
            i += 2;
        }
        // The filesystem API takes C strings: a NUL would cut the path short of what was checked.
        if (c == '\0') {
            return {{}, path_error::nul_byte};
        }
        decoded.push_back(c);
    }

    std::vector<std::string_view> segments;
    bool names_directory = false;
    std::string_view rest = decoded;
    // Every round starts at a '/': the first byte was checked above and each segment ends at one.
    while (!rest.empty()) {
        rest.remove_prefix(1);
        const std::string_view segment = rest.substr(0, rest.find('/'));
        rest.remove_prefix(segment.size());
        names_directory = segment.empty() || segment == "." || segment == "..";
        if (segment == "..") {
            if (segments.empty()) {
                return {{}, path_error::escapes_root};
            }
            segments.pop_back();
        } else if (!names_directory) {
            segments.push_back(segment);
        }
    }
    std::string path;
    for (const std::string_view segment : segments) {
        path += '/';
        path += segment;
    }
    if (segments.empty() || names_directory) {
        path += '/';
    }
    return {std::move(path)};
}

std::string_view reason_for(path_error error) {
    switch (error) {
        case path_error::nul_byte: return "NUL byte in path";
        case path_error::escapes_root: return "path escapes the document root";
        case path_error::malformed:
        case path_error::none: break;
    }
    return "malformed path";
}

// Case-insensitive (ASCII) comparisons in place, with Beast's iequals: routing runs on every
// request, and lowered copies of the path cost an allocation each once it outgrows the
// string's inline buffer.
bool istarts_with(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() &&
           boost::beast::iequals(text.substr(0, prefix.size()), prefix);
}

/// The first case-insensitive occurrence of `needle` in `text` at or after `from`, or npos.
std::size_t ifind(std::string_view text, std::string_view needle, std::size_t from) {
    for (std::size_t at = from; at + needle.size() <= text.size(); ++at) {
        if (boost::beast::iequals(text.substr(at, needle.size()), needle)) {
            return at;
        }
    }
    return std::string_view::npos;
}

/// True when a segment of a normalised path starts with '.': dotfiles and dot-directories such
/// as .env, .git or .htpasswd hold secrets. ".well-known" (RFC 8615) has to stay reachable.
bool has_hidden_segment(std::string_view path) {
    for (std::size_t at = path.find("/."); at != std::string_view::npos;
         at = path.find("/.", at + 1)) {
        const std::size_t start = at + 1;
        const std::string_view segment = path.substr(start, path.find('/', start) - start);
        if (segment != ".well-known") {
            return true;
        }
    }
    return false;
}

/// True for names that hold PHP code, which must never go out as text: any extension after the
/// first dot that starts with "php" (php, php5, phps, and backups like .php.bak or .php~),
/// "pht" (pht, phtml) or "phar", or is "inc" (also as the "inc~" of an editor backup).
bool is_php_source(std::string_view path) {
    const std::string_view name = path.substr(path.rfind('/') + 1);
    for (std::size_t dot = name.find('.'); dot != std::string_view::npos;) {
        const std::size_t next = name.find('.', dot + 1);
        std::string_view extension = name.substr(dot + 1, next - dot - 1);
        if (istarts_with(extension, "php") || istarts_with(extension, "pht") ||
            istarts_with(extension, "phar")) {
            return true;
        }
        while (extension.ends_with('~')) {
            extension.remove_suffix(1);
        }
        if (boost::beast::iequals(extension, "inc")) {
            return true;
        }
        dot = next;
    }
    return false;
}

/// root + url_path without a doubled slash when the root is "/" itself.
std::string under_root(const std::string& root, std::string_view url_path) {
    if (root == "/") {
        return std::string(url_path);
    }
    std::string path;
    path.reserve(root.size() + url_path.size());
    return path.append(root).append(url_path);
}

/// The part of a canonical path below root ("" for root itself, else starting with '/'), or
/// nullopt when the path is outside the root.
std::optional<std::string_view> below_root(const std::string& root, std::string_view canonical) {
    if (root == "/") {
        return canonical;
    }
    if (!canonical.starts_with(root)) {
        return std::nullopt;
    }
    const std::string_view rest = canonical.substr(root.size());
    if (!rest.empty() && rest.front() != '/') {
        return std::nullopt;
    }
    return rest;
}

enum class entry_kind { missing, file, directory };

struct entry {
    entry_kind kind = entry_kind::missing;
    std::string canonical;  ///< realpath of the entry when it is not missing
};

/// What a normalised URL path names under the root. Hidden paths, and paths whose symlinks
/// lead onto a hidden name under the root or (unless options.follow_symlinks) outside the
/// root, are missing. Only regular files are files:
/// FIFOs or devices would block or leak on open.
entry look_up(const router_options& options, const std::string& url_path) {
    // The root and the resident worker scripts were found when the server started, and a
    // worker keeps serving its script whatever happens to the file since: asking the
    // filesystem again on every request would only cost a system call.
    if (url_path == "/") {
        return {entry_kind::directory, options.root};
    }
    if (std::find(options.resident.begin(), options.resident.end(), url_path) !=
        options.resident.end()) {
        return {entry_kind::file, under_root(options.root, url_path)};
    }
    if (has_hidden_segment(url_path)) {
        return {};
    }
    std::string full = under_root(options.root, url_path);

    // Fast path, for the usual tree without symlinks: the root is canonical and the URL path
    // normalised, so if no component below the root is a symlink, `full` is already the
    // canonical path. One lstat per component below the root instead of realpath()'s
    // readlink per component of the whole path: this runs on every request. Each prefix is
    // `full` cut short by a NUL for the call, not a copy.
    struct stat info {};
    bool has_symlink = false;
    std::size_t end = options.root == "/" ? 0 : options.root.size();
    while (end < full.size()) {
        const std::size_t next = full.find('/', end + 1);
        const bool cut = next != std::string::npos;
        if (cut) {
            full[next] = '\0';
        }
        const int failed = ::lstat(full.c_str(), &info);
        if (cut) {
            full[next] = '/';
        }
        if (failed != 0) {
            return {};
        }
        if (S_ISLNK(info.st_mode)) {
            has_symlink = true;
            break;
        }
        if (next == std::string::npos) {
            break;
        }
        end = next;
    }
    if (!has_symlink) {
        std::string canonical = std::move(full);
        while (canonical.size() > 1 && canonical.back() == '/') {
            canonical.pop_back();
        }
        if (S_ISDIR(info.st_mode)) {
            return {entry_kind::directory, std::move(canonical)};
        }
        if (!S_ISREG(info.st_mode)) {
            return {};
        }
        return {entry_kind::file, std::move(canonical)};
    }

    const std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(full.c_str(), nullptr),
                                                               &std::free);
    if (!resolved) {
        return {};
    }
    std::string canonical(resolved.get());
    std::optional<std::string_view> inside = below_root(options.root, canonical);
    for (auto other = options.other_roots.begin(); !inside && other != options.other_roots.end();
         ++other) {
        inside = below_root(*other, canonical);
    }
    // A target outside every root of the site was put there by whoever made the link; only the
    // names below a root are the URL's to vet.
    if (inside ? has_hidden_segment(*inside) : !options.follow_symlinks) {
        return {};
    }
    if (::stat(canonical.c_str(), &info) != 0) {
        return {};
    }
    // POSIX path resolution fails "file.txt/" with ENOTDIR, so a trailing slash never names a
    // file here.
    if (S_ISDIR(info.st_mode)) {
        return {entry_kind::directory, std::move(canonical)};
    }
    if (!S_ISREG(info.st_mode)) {
        return {};
    }
    return {entry_kind::file, std::move(canonical)};
}

bool is_file(const router_options& options, const std::string& url_path) {
    // A resident worker script is a file (look_up's first answer), and asking needs no path.
    return std::find(options.resident.begin(), options.resident.end(), url_path) !=
               options.resident.end() ||
           look_up(options, url_path).kind == entry_kind::file;
}

/// Appends text percent-encoding every byte but RFC 3986 unreserved and sub-delims characters
/// and those in also_allowed, so a decoded CR, LF, space or backslash cannot reach a header.
void append_encoded(std::string& out, std::string_view text, std::string_view also_allowed) {
    constexpr std::string_view safe =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=";
    constexpr std::string_view hex = "0123456789ABCDEF";
    for (const char c : text) {
        if (safe.find(c) != std::string_view::npos ||
            also_allowed.find(c) != std::string_view::npos) {
            out += c;
        } else {
            const auto byte = static_cast<unsigned char>(c);
            out += '%';
            out += hex[byte >> 4];
            out += hex[byte & 0xF];
        }
    }
}

route php_route(const router_options& options, std::string script_name, std::string path_info) {
    route result;
    result.kind = route_kind::php;
    result.file = under_root(options.document_root.empty() ? options.root : options.document_root,
                             script_name);
    result.script_name = std::move(script_name);
    result.path_info = std::move(path_info);
    return result;
}

/// The script prefix of a path: the first prefix ending in a split extension (any case) at a
/// segment end that is a file, as Caddy's split_path. nullopt when there is none.
std::optional<std::size_t> split_point(const router_options& options, const std::string& path) {
    std::optional<std::size_t> best;
    for (const std::string& extension : options.split) {
        for (std::size_t at = ifind(path, extension, 0); at != std::string_view::npos;
             at = ifind(path, extension, at + 1)) {
            const std::size_t end = at + extension.size();
            if (best && end >= *best) {
                break;
            }
            if ((end == path.size() || path[end] == '/') && is_file(options, path.substr(0, end))) {
                best = end;
                break;
            }
        }
    }
    return best;
}

/// One try_files candidate (a normalised URL path): a PHP script, possibly with PATH_INFO
/// after it; a file; or, for a candidate ending in '/', a directory's index.
/// Fills `result` and returns true when the candidate names something (a file that is not
/// served is a 404, not a reason to try the next candidate).
/// `known` is look_up(options, candidate) when the caller already has it.
bool try_candidate(const router_options& options, const std::string& candidate, route& result,
                   const entry* known = nullptr) {
    if (options.php) {
        if (const std::optional<std::size_t> end = split_point(options, candidate)) {
            result = php_route(options, candidate.substr(0, *end), candidate.substr(*end));
            return true;
        }
    }
    entry looked_up;
    if (known == nullptr) {
        looked_up = look_up(options, candidate);
    }
    const entry& found = known != nullptr ? *known : looked_up;
    if (found.kind == entry_kind::directory && candidate.ends_with('/')) {
        return !options.index.empty() && try_candidate(options, candidate + options.index, result);
    }
    // Without a file server a file that is not a script names nothing: the next candidate (the
    // front controller) gets the request, as FrankenPHP's `php_server { file_server off }`
    // leaves {path} out of its try_files.
    if (found.kind != entry_kind::file ||
        (!options.file_server && !is_php_source(candidate) && !is_php_source(found.canonical))) {
        return false;
    }
    // Check the symlink's target too: "notes.txt" -> "config.php" must not leak config.php.
    if (is_php_source(candidate) || is_php_source(found.canonical)) {
        result.kind = route_kind::forbidden;
        result.reason = "PHP source is never served";
    } else {
        result.kind = route_kind::static_file;
        // The requested name, not the link target, so the Content-Type follows the URL's
        // extension as in Caddy and nginx.
        result.file = under_root(options.root, candidate);
    }
    return true;
}

/// A try_files pattern with {path} replaced by the request path and slashes merged; a
/// "?{query}" suffix keeps the query, which is what it asks for.
std::string expand_candidate(std::string_view pattern, const std::string& path) {
    if (const std::size_t question = pattern.find('?'); question != std::string_view::npos) {
        pattern = pattern.substr(0, question);
    }
    std::string expanded;
    for (std::size_t i = 0; i < pattern.size();) {
        if (pattern.substr(i).starts_with("{path}")) {
            expanded += path;
            i += 6;
        } else {
            expanded += pattern[i++];
        }
    }
    std::string merged;
    for (char c : expanded) {
        if (c != '/' || merged.empty() || merged.back() != '/') {
            merged += c;
        }
    }
    return merged.empty() || merged.front() != '/' ? "/" + merged : merged;
}

}  // namespace

std::string_view to_string(route_kind kind) {
    switch (kind) {
        case route_kind::php: return "php";
        case route_kind::static_file: return "static_file";
        case route_kind::redirect: return "redirect";
        case route_kind::not_found: return "not_found";
        case route_kind::forbidden: return "forbidden";
        case route_kind::bad_request: return "bad_request";
        case route_kind::status: return "status";
    }
    return "unknown";
}

const router_options& select_router(const std::vector<path_router>& routers,
                                    const router_options& fallback, std::string_view raw_path) {
    if (routers.empty()) {
        return fallback;
    }
    // Patterns see the normalised path, as Caddy's matchers do: "/a/../wp-content/x" is under
    // /wp-content/, "/wp-content%2Fx" too.
    const normalized_path normalized = normalize(raw_path);
    if (normalized.error != path_error::none) {
        return fallback;
    }
    for (const path_router& router : routers) {
        if (path_matches(router.match, normalized.path)) {
            return router.options;
        }
    }
    return fallback;
}

void add_resident(router_options& options, const std::string& file) {
    const std::optional<std::string_view> url_path = below_root(options.root, file);
    if (url_path && !url_path->empty() && !has_hidden_segment(*url_path)) {
        options.resident.emplace_back(*url_path);
    }
}

std::optional<std::string> normalize_path(std::string_view raw_path) {
    normalized_path normalized = normalize(raw_path);
    if (normalized.error != path_error::none) {
        return std::nullopt;
    }
    return std::move(normalized.path);
}

route resolve_route(const router_options& options, std::string_view raw_path,
                    std::string_view query) {
    route result;
    normalized_path normalized = normalize(raw_path);
    if (normalized.error != path_error::none) {
        result.kind = route_kind::bad_request;
        result.reason = reason_for(normalized.error);
        return result;
    }
    const std::string& path = normalized.path;

    // Caddy's php_server sends "/dir" to "/dir/" when dir holds the index, so that relative
    // links in the index page resolve inside the directory. What the path names is looked up
    // once, for this and for the first try_files candidate, which is usually the path itself.
    std::optional<entry> named;
    if (!path.ends_with('/')) {
        named = look_up(options, path);
    }
    const auto known = [&](const std::string& candidate) -> const entry* {
        return named && candidate == path ? &*named : nullptr;
    };
    if (named && named->kind == entry_kind::directory && !options.index.empty() &&
        is_file(options, path + "/" + options.index)) {
        result.kind = route_kind::redirect;
        // The path is normalised, so it starts with exactly one '/': never "//host".
        append_encoded(result.location, path, ":@/");
        result.location += '/';
        if (!query.empty()) {
            result.location += '?';
            append_encoded(result.location, query, ":@/?%");
        }
        return result;
    }

    // try_files: the first candidate that names something wins. php_server's own list is
    // {path} {path}/{index} {index}: the file itself, a directory's index, the front controller.
    // With the index off (`index off`) there is no list: the path itself or nothing, as
    // FrankenPHP's php_server then adds no rewrite.
    if (options.index.empty()) {
        try_candidate(options, path, result, known(path));
        return result;
    }
    if (options.try_files.empty()) {
        for (const std::string& candidate :
             {path, path.ends_with('/') ? path + options.index : std::string(),
              "/" + options.index}) {
            if (!candidate.empty() && try_candidate(options, candidate, result, known(candidate))) {
                return result;
            }
        }
        return result;
    }
    for (const std::string& pattern : options.try_files) {
        if (pattern.starts_with('=')) {
            result.kind = route_kind::status;
            result.status = std::atoi(pattern.c_str() + 1);
            return result;
        }
        const std::string candidate = expand_candidate(pattern, path);
        if (try_candidate(options, candidate, result, known(candidate))) {
            return result;
        }
    }
    return result;
}

}  // namespace spindle::server
