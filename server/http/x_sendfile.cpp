#include "server/http/x_sendfile.hpp"

#include <fcntl.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>

#include "server/http/field_lists.hpp"

namespace spindle::server {
namespace {

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

bool istarts_with(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && iequals(text.substr(0, prefix.size()), prefix);
}

// Fields of the script's head that the file's own response replaces, or that only speak to
// the server (nginx consumes every X-Accel-* field of an upstream response).
bool is_replaced_field(std::string_view name) {
    static constexpr std::array<std::string_view, 10> replaced{
        "content-length", "content-type", "transfer-encoding", "content-encoding", "content-range",
        "accept-ranges",  "etag",         "last-modified",     "x-sendfile",       "connection"};
    return istarts_with(name, "x-accel-") ||
           std::any_of(replaced.begin(), replaced.end(),
                       [&](std::string_view r) { return iequals(name, r); });
}

// Whether `path` lies strictly inside directory `dir` (canonical, no trailing '/' but "/").
bool is_inside(std::string_view path, std::string_view dir) {
    if (dir == "/") {
        return path.size() > 1 && path.front() == '/';
    }
    return path.size() > dir.size() + 1 && path.starts_with(dir) && path[dir.size()] == '/';
}

bool has_dot_dot_segment(std::string_view path) {
    while (!path.empty()) {
        const std::size_t slash = path.find('/');
        if (path.substr(0, slash) == "..") {
            return true;
        }
        path.remove_prefix(slash == std::string_view::npos ? path.size() : slash + 1);
    }
    return false;
}

handoff_file refuse(int status, std::string reason) {
    handoff_file out;
    out.status = status;
    out.reason = std::move(reason);
    return out;
}

}  // namespace

std::optional<file_handoff> take_file_handoff(const std::vector<sapi::header>& headers) {
    std::optional<file_handoff> out;
    for (const sapi::header& h : headers) {
        const std::string_view value = trim_ows(h.value);
        if (value.empty()) {
            continue;
        }
        const bool is_sendfile = iequals(h.name, "x-sendfile");
        if (is_sendfile || iequals(h.name, "x-accel-redirect")) {
            if (!out) {
                out.emplace();
            } else if (!is_sendfile) {
                continue;  // X-Sendfile wins
            }
            out->target.assign(value);
            out->is_accel_redirect = !is_sendfile;
        }
    }
    if (!out) {
        return out;
    }
    for (const sapi::header& h : headers) {
        if (iequals(h.name, "content-type")) {
            // PHP labels every response text/html unless the script says otherwise; a
            // download named by extension is better served by the extension's type.
            const std::string_view type = trim_ows(h.value);
            out->content_type = istarts_with(type, "text/html") ? "" : std::string(type);
        } else if (!is_replaced_field(h.name)) {
            out->headers.append(h.name).append(": ").append(h.value).append("\r\n");
        }
    }
    return out;
}

void drop_handoff_fields(std::vector<sapi::header>& headers) {
    std::erase_if(headers, [](const sapi::header& h) {
        return iequals(h.name, "x-sendfile") || iequals(h.name, "x-accel-redirect");
    });
}

handoff_file open_handoff_file(const config::x_sendfile_config& config,
                               const file_handoff& handoff) {
    std::string path;
    std::vector<std::string_view> allowed;
    if (handoff.is_accel_redirect) {
        // A URL path: its query (nginx passes it on as the redirect's arguments) names no file.
        const std::string_view target =
            std::string_view(handoff.target).substr(0, handoff.target.find('?'));
        const config::accel_mapping* best = nullptr;
        for (const config::accel_mapping& mapping : config.accel_redirect) {
            if (target.starts_with(mapping.prefix) &&
                (best == nullptr || mapping.prefix.size() > best->prefix.size())) {
                best = &mapping;
            }
        }
        if (best == nullptr) {
            return refuse(404, "X-Accel-Redirect " + handoff.target +
                                   " is under no accel_redirect prefix of x_sendfile");
        }
        path = best->root + "/" + std::string(target.substr(best->prefix.size()));
        allowed.push_back(best->root);
    } else {
        if (!handoff.target.starts_with('/')) {
            return refuse(404, "X-Sendfile " + handoff.target + " is not an absolute path");
        }
        path = handoff.target;
        allowed.assign(config.roots.begin(), config.roots.end());
    }
    const auto is_allowed = [&](std::string_view candidate) {
        return std::any_of(allowed.begin(), allowed.end(),
                           [&](std::string_view dir) { return is_inside(candidate, dir); });
    };
    if (has_dot_dot_segment(path)) {
        return refuse(403, path + " has a \"..\" segment");
    }
    if (!is_allowed(path)) {
        return refuse(403, path + " is outside the x_sendfile directories");
    }
    // O_NONBLOCK: a FIFO planted in the directory must not block the I/O thread; it is
    // refused below as not a regular file.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        const int error = errno;
        if (error == ENOENT || error == ENOTDIR) {
            return refuse(404, path + " does not exist");
        }
        return refuse(403, path + " cannot be opened");
    }
    // The real path of what was opened, not of what the name led to a moment before: a
    // symlink swapped in between cannot lead outside.
    std::array<char, 4096> real{};
    const std::string link = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t n = ::readlink(link.c_str(), real.data(), real.size() - 1);
    struct stat st {};
    if (n <= 0 || !is_allowed(std::string_view(real.data(), static_cast<std::size_t>(n)))) {
        ::close(fd);
        return refuse(403, path + " leads outside the x_sendfile directories");
    }
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return refuse(403, path + " is not a regular file");
    }
    handoff_file out;
    out.fd = fd;
    out.name = std::move(path);
    return out;
}

void set_x_sendfile_request_headers(const config::x_sendfile_config& config,
                                    std::vector<sapi::header>& headers) {
    std::erase_if(headers, [](const sapi::header& h) {
        return iequals(h.name, "x-sendfile-type") || iequals(h.name, "x-accel-mapping");
    });
    headers.push_back(
        {"X-Sendfile-Type", config.roots.empty() ? "X-Accel-Redirect" : "X-Sendfile"});
    if (config.accel_redirect.empty()) {
        return;
    }
    std::string mapping;
    for (const config::accel_mapping& m : config.accel_redirect) {
        mapping.append(mapping.empty() ? "" : ", ").append(m.root);
        if (m.root != "/") {
            mapping.push_back('/');
        }
        mapping.append("=").append(m.prefix);
    }
    headers.push_back({"X-Accel-Mapping", std::move(mapping)});
}

}  // namespace spindle::server
