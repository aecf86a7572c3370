#include "server/process/systemd_notifier.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <spdlog/spdlog.h>

namespace spindle::server {

systemd_notifier systemd_notifier::from_environment() {
    const char* value = std::getenv("NOTIFY_SOCKET");
    std::string path = value != nullptr ? value : "";
    unsetenv("NOTIFY_SOCKET");
    return systemd_notifier(std::move(path));
}

systemd_notifier::systemd_notifier(std::string socket_path)
    : socket_path_(std::move(socket_path)) {}

void systemd_notifier::ready(std::string_view status) const {
    send("READY=1\nSTATUS=" + std::string(status));
}

void systemd_notifier::reloading() const {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const long long usec = static_cast<long long>(now.tv_sec) * 1000000 + now.tv_nsec / 1000;
    send("RELOADING=1\nMONOTONIC_USEC=" + std::to_string(usec));
}

void systemd_notifier::stopping() const {
    send("STOPPING=1");
}

void systemd_notifier::send(const std::string& message) const {
    if (socket_path_.empty()) {
        return;
    }
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    // systemd passes either a path or an abstract name written with a leading '@'.
    if (socket_path_.size() >= sizeof(address.sun_path) ||
        (socket_path_[0] != '/' && socket_path_[0] != '@')) {
        spdlog::get("server")->warn(
            "NOTIFY_SOCKET={} is not a socket address; systemd will not "
            "hear that Spindle is {}",
            socket_path_, message.substr(0, message.find('\n')));
        return;
    }
    std::memcpy(address.sun_path, socket_path_.data(), socket_path_.size());
    if (address.sun_path[0] == '@') {
        address.sun_path[0] = '\0';
    }
    const socklen_t length =
        static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + socket_path_.size());
    const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || sendto(fd, message.data(), message.size(), MSG_NOSIGNAL,
                         reinterpret_cast<const sockaddr*>(&address), length) < 0) {
        spdlog::get("server")->warn(
            "cannot notify systemd at {} ({}): a Type=notify unit will "
            "time out; check the unit's NotifyAccess",
            socket_path_, std::strerror(errno));
    }
    if (fd >= 0) {
        close(fd);
    }
}

}  // namespace spindle::server
