#include "server/process/server_process_role.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace spindle::server {

namespace {

constexpr const char* index_variable = "SPINDLE_PROCESS_INDEX";
constexpr const char* supervisor_variable = "SPINDLE_SUPERVISOR_PID";
constexpr const char* admin_variable = "SPINDLE_PROCESS_ADMIN";
constexpr const char* sockets_variable = "SPINDLE_LISTEN_FDS";

// The variable's value, removed from the environment.
std::optional<std::string> take_variable(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr) {
        return std::nullopt;
    }
    std::string copy = value;
    ::unsetenv(name);
    return copy;
}

}  // namespace

std::vector<std::string> server_process_role::environment() const {
    // One "FD ADDRESS" per line: an address never holds a newline, a Unix path may hold spaces.
    std::string list;
    for (const auto& [address, fd] : sockets) {
        list += std::to_string(fd) + " " + address + "\n";
    }
    return {std::string(index_variable) + "=" + std::to_string(index),
            std::string(supervisor_variable) + "=" + std::to_string(supervisor),
            std::string(admin_variable) + "=" + admin_path,
            std::string(sockets_variable) + "=" + list};
}

std::optional<server_process_role> server_process_role::take_from_environment() {
    const std::optional<std::string> index = take_variable(index_variable);
    const std::optional<std::string> supervisor = take_variable(supervisor_variable);
    const std::optional<std::string> admin = take_variable(admin_variable);
    const std::optional<std::string> sockets = take_variable(sockets_variable);
    if (!index) {
        return std::nullopt;
    }
    if (!supervisor || !admin || !sockets) {
        throw std::runtime_error("started as a server process without the supervisor's sockets");
    }
    server_process_role role;
    try {
        role.index = std::stoul(*index);
        role.supervisor = static_cast<pid_t>(std::stol(*supervisor));
        role.admin_path = *admin;
        std::istringstream lines(*sockets);
        for (std::string line; std::getline(lines, line);) {
            const std::size_t space = line.find(' ');
            if (space == std::string::npos) {
                throw std::invalid_argument(line);
            }
            role.sockets.emplace_back(line.substr(space + 1), std::stoi(line.substr(0, space)));
        }
    } catch (const std::logic_error&) {
        throw std::runtime_error("malformed server process variables from the supervisor");
    }
    return role;
}

std::optional<int> server_process_role::take_socket(const std::string& address) {
    const auto found = std::find_if(sockets.begin(), sockets.end(),
                                    [&](const auto& entry) { return entry.first == address; });
    if (found == sockets.end()) {
        return std::nullopt;
    }
    const int fd = found->second;
    sockets.erase(found);
    return fd;
}

}  // namespace spindle::server
