#pragma once
// Restarts the workers when a watched file changes (a worker's `watch`): inotify on the
// directories the patterns name, read on the server's control strand.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/watch_pattern.hpp"

namespace spindle::server {

class file_watcher {
  public:
    /// Called once per burst of changes (editors and deployments write several files), with
    /// the first changed path, on the executor's thread.
    using on_change = std::function<void(const std::string& path)>;

    file_watcher(boost::asio::any_io_executor executor, std::vector<config::watch_pattern> patterns,
                 on_change callback);
    file_watcher(const file_watcher&) = delete;
    file_watcher& operator=(const file_watcher&) = delete;

    /// Watches every directory the patterns name (below `**`: every subdirectory, but not
    /// hidden ones such as .git) and starts reading. Directories that do not exist are logged
    /// and skipped. Executor's thread.
    void start();
    /// Stops reading and watching; pending changes are dropped. Executor's thread.
    void stop();

  private:
    void watch_directory(const std::string& directory, bool recursive);
    void read();
    void handle(const char* events, std::size_t size);
    /// A file changed; an empty path: some did, unknown which (the event queue overflowed).
    void changed(const std::string& path);

    std::vector<config::watch_pattern> patterns_;
    on_change callback_;
    boost::asio::posix::stream_descriptor inotify_;
    boost::asio::steady_timer quiet_;  ///< fires when changes have stopped for a moment
    struct watched_directory {
        std::string path;
        bool recursive = false;  ///< below `**`: its new subdirectories are watched too
    };
    std::unordered_map<int, watched_directory> directories_;  ///< by watch descriptor
    std::string first_change_;                                ///< empty: no burst pending
    std::array<char, 16384> buffer_{};
    bool warned_limit_ = false;
};

}  // namespace spindle::server
