#include "config/watch_pattern.hpp"

#include <fnmatch.h>

#include <stdexcept>

namespace spindle::config {

namespace {

bool has_wildcard(std::string_view segment) {
    return segment.find_first_of("*?[{") != std::string_view::npos;
}

// "/a/./b/" -> "/a/b"; ".." is kept as written (the directory is watched as it resolves).
std::string clean_directory(const std::vector<std::string_view>& segments) {
    std::string out;
    for (std::string_view s : segments) {
        if (s.empty() || s == ".") {
            continue;
        }
        out += '/';
        out += s;
    }
    return out.empty() ? "/" : out;
}

}  // namespace

std::vector<std::string> expand_alternatives(std::string_view glob) {
    const std::size_t open = glob.find('{');
    if (open == std::string_view::npos) {
        return {std::string(glob)};
    }
    const std::size_t close = glob.find('}', open);
    if (close == std::string_view::npos) {
        throw std::invalid_argument("unbalanced '{' in \"" + std::string(glob) + "\"");
    }
    const std::string_view head = glob.substr(0, open);
    const std::string_view body = glob.substr(open + 1, close - open - 1);
    const std::vector<std::string> tails = expand_alternatives(glob.substr(close + 1));
    std::vector<std::string> out;
    for (std::size_t start = 0;;) {
        const std::size_t comma = body.find(',', start);
        const std::string_view choice = body.substr(start, comma - start);
        for (const std::string& tail : tails) {
            out.push_back(std::string(head) + std::string(choice) + tail);
        }
        if (comma == std::string_view::npos) {
            break;
        }
        start = comma + 1;
    }
    return out;
}

watch_pattern parse_watch_pattern(std::string_view text, const std::string& cwd) {
    if (text.empty()) {
        throw std::invalid_argument("empty watch pattern");
    }
    const std::string absolute =
        text.front() == '/' ? std::string(text) : cwd + "/" + std::string(text);
    std::vector<std::string_view> segments;
    const std::string_view view(absolute);
    for (std::size_t start = 0; start <= view.size();) {
        const std::size_t slash = std::min(view.find('/', start), view.size());
        segments.push_back(view.substr(start, slash - start));
        start = slash + 1;
    }
    while (!segments.empty() && segments.back().empty()) {
        segments.pop_back();  // "dir/" names the directory
    }
    std::size_t first = 0;
    while (first < segments.size() && !has_wildcard(segments[first])) {
        ++first;
    }
    watch_pattern out;
    out.text = text;
    if (first == segments.size()) {
        // No wildcard: one file, or every file of one directory when it ends in '/'.
        if (text.back() == '/') {
            out.directory = clean_directory(segments);
            out.names = {"*"};
        } else {
            out.names = {std::string(segments.back())};
            segments.pop_back();
            out.directory = clean_directory(segments);
        }
        return out;
    }
    const std::vector<std::string_view> directory(segments.begin(), segments.begin() + first);
    out.directory = clean_directory(directory);
    const std::size_t rest = segments.size() - first;
    if (segments[first] == "**") {
        out.recursive = true;
        if (rest == 1) {
            out.names = {"*"};
            return out;
        }
        if (rest == 2 && segments[first + 1].find("**") == std::string_view::npos) {
            out.names = expand_alternatives(segments[first + 1]);
            return out;
        }
    } else if (rest == 1 && segments[first].find("**") == std::string_view::npos) {
        out.names = expand_alternatives(segments[first]);
        return out;
    }
    throw std::invalid_argument("watch pattern \"" + std::string(text) +
                                "\": wildcards go in the file name only, as DIR/NAME, "
                                "DIR/**/NAME or DIR/**");
}

bool matches(const watch_pattern& pattern, std::string_view path) {
    const std::string_view dir = pattern.directory;
    const std::size_t prefix = dir == "/" ? 1 : dir.size() + 1;
    if (path.size() <= prefix || !path.starts_with(dir) || path[prefix - 1] != '/') {
        return false;
    }
    const std::string_view below = path.substr(prefix);
    const std::size_t slash = below.rfind('/');
    if (slash != std::string_view::npos && !pattern.recursive) {
        return false;
    }
    const std::string name(slash == std::string_view::npos ? below : below.substr(slash + 1));
    for (const std::string& glob : pattern.names) {
        if (fnmatch(glob.c_str(), name.c_str(), 0) == 0) {
            return true;
        }
    }
    return false;
}

}  // namespace spindle::config
