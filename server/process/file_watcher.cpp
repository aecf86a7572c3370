#include "server/process/file_watcher.hpp"

#include <spdlog/spdlog.h>
#include <sys/inotify.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace spindle::server {

namespace fs = std::filesystem;
namespace net = boost::asio;

namespace {

// A burst of writes (a deployment, an editor's save-and-rename) restarts the workers once,
// after it has been quiet this long.
constexpr auto quiet_period = std::chrono::milliseconds(200);

constexpr std::uint32_t file_events =
    IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO;

int open_inotify() {
    const int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) {
        throw std::system_error(errno, std::generic_category(), "inotify_init1");
    }
    return fd;
}

}  // namespace

file_watcher::file_watcher(net::any_io_executor executor,
                           std::vector<config::watch_pattern> patterns, on_change callback)
    : patterns_(std::move(patterns)),
      callback_(std::move(callback)),
      inotify_(executor, open_inotify()),
      quiet_(executor) {}

void file_watcher::start() {
    for (const config::watch_pattern& pattern : patterns_) {
        std::error_code ec;
        if (!fs::is_directory(pattern.directory, ec)) {
            spdlog::get("server")->warn("watch {}: {} is not a directory; not watched",
                                        pattern.text, pattern.directory);
            continue;
        }
        watch_directory(pattern.directory, pattern.recursive);
    }
    spdlog::get("server")->info("watching {} directories for changes that restart the workers",
                                directories_.size());
    read();
}

void file_watcher::stop() {
    quiet_.cancel();
    boost::system::error_code ignored;
    inotify_.close(ignored);
    first_change_.clear();
}

void file_watcher::watch_directory(const std::string& directory, bool recursive) {
    const int wd = inotify_add_watch(inotify_.native_handle(), directory.c_str(), file_events);
    if (wd < 0) {
        if (!warned_limit_) {
            warned_limit_ = true;
            spdlog::get("server")->warn(
                "watch: cannot watch {}: {}{}", directory, std::strerror(errno),
                errno == ENOSPC ? " (raise fs.inotify.max_user_watches)" : "");
        }
        return;
    }
    // The same directory from two patterns gets the same descriptor: keep the wider watch.
    watched_directory& entry = directories_[wd];
    entry.path = directory;
    entry.recursive = entry.recursive || recursive;
    if (!recursive) {
        return;
    }
    std::error_code ec;
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::error_code type_ec;
        if (!name.starts_with('.') && it->is_directory(type_ec) && !it->is_symlink(type_ec)) {
            watch_directory(it->path().string(), true);
        }
    }
}

void file_watcher::read() {
    inotify_.async_read_some(net::buffer(buffer_),
                             [this](const boost::system::error_code& ec, std::size_t size) {
                                 if (ec) {
                                     return;  // closed by stop()
                                 }
                                 handle(buffer_.data(), size);
                                 read();
                             });
}

void file_watcher::handle(const char* events, std::size_t size) {
    for (std::size_t at = 0; at + sizeof(inotify_event) <= size;) {
        inotify_event event{};
        std::memcpy(&event, events + at, sizeof event);
        const char* name = events + at + sizeof(inotify_event);
        at += sizeof(inotify_event) + event.len;
        if ((event.mask & IN_Q_OVERFLOW) != 0) {
            // Changes were lost: whatever they were, restart rather than serve stale code.
            changed({});
            continue;
        }
        const auto dir = directories_.find(event.wd);
        if ((event.mask & IN_IGNORED) != 0) {
            if (dir != directories_.end()) {
                directories_.erase(dir);
            }
            continue;
        }
        if (dir == directories_.end() || event.len == 0) {
            continue;
        }
        const std::string path = dir->second.path + "/" + name;
        if ((event.mask & IN_ISDIR) != 0) {
            // A new directory under `**` is watched too, with what it already holds.
            if ((event.mask & (IN_CREATE | IN_MOVED_TO)) != 0 && dir->second.recursive &&
                name[0] != '.') {
                watch_directory(path, true);
            }
            continue;
        }
        changed(path);
    }
}

void file_watcher::changed(const std::string& path) {
    const bool wanted =
        path.empty() || std::any_of(patterns_.begin(), patterns_.end(), [&](const auto& pattern) {
            return config::matches(pattern, path);
        });
    if (!wanted) {
        return;
    }
    if (first_change_.empty()) {
        first_change_ = path.empty() ? "(inotify queue overflow)" : path;
    }
    quiet_.expires_after(quiet_period);
    quiet_.async_wait([this](const boost::system::error_code& ec) {
        if (ec || first_change_.empty()) {
            return;  // a later change moved the deadline, or stop()
        }
        const std::string path = std::move(first_change_);
        first_change_.clear();
        callback_(path);
    });
}

}  // namespace spindle::server
