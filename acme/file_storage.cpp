#include "acme/file_storage.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace spindle::acme {

namespace fs = std::filesystem;

namespace {

std::string safe(std::string_view part) {
    std::string out;
    for (const char c : part) {
        if (c == '*') {
            out += "wildcard_";
        } else if (c == '/' || c == ':' || c == '\\') {
            out.push_back('-');
        } else {
            out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        }
    }
    // ".." would climb out of the storage root.
    return out == ".." || out == "." ? "_" : out;
}

}  // namespace

file_storage::file_storage(std::string root) : root_(std::move(root)) {}

std::string file_storage::path(const std::string& key) const {
    return (fs::path(root_) / key).string();
}

std::optional<std::string> file_storage::read(const std::string& key) const {
    const std::string file = path(key);
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        if (errno == ENOENT) {
            return std::nullopt;
        }
        throw std::runtime_error("cannot read " + file + ": " + std::strerror(errno));
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void file_storage::write(const std::string& key, std::string_view data, bool is_secret) const {
    const fs::path file = path(key);
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    if (ec) {
        throw std::runtime_error("cannot make " + file.parent_path().string() + ": " +
                                 ec.message());
    }
    // Directories under the root hold keys: only the owner may list them.
    for (fs::path dir = file.parent_path(); dir.string().size() >= root_.size();
         dir = dir.parent_path()) {
        ::chmod(dir.c_str(), 0700);
        if (dir == dir.parent_path()) {
            break;
        }
    }
    const std::string temporary = file.string() + ".tmp";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                          is_secret ? 0600 : 0644);
    if (fd < 0) {
        throw std::runtime_error("cannot write " + temporary + ": " + std::strerror(errno));
    }
    std::size_t written = 0;
    while (written < data.size()) {
        const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            const int error = errno;
            ::close(fd);
            throw std::runtime_error("cannot write " + temporary + ": " + std::strerror(error));
        }
        written += static_cast<std::size_t>(n);
    }
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (!synced || ::rename(temporary.c_str(), file.c_str()) != 0) {
        throw std::runtime_error("cannot write " + file.string() + ": " + std::strerror(errno));
    }
}

std::string default_storage_root() {
    if (const char* data = std::getenv("XDG_DATA_HOME"); data != nullptr && *data != '\0') {
        return (fs::path(data) / "spindle").string();
    }
    if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
        return (fs::path(home) / ".local" / "share" / "spindle").string();
    }
    return "spindle-data";
}

std::string issuer_key(std::string_view directory_url) {
    if (const std::size_t at = directory_url.find("://"); at != std::string_view::npos) {
        directory_url.remove_prefix(at + 3);
    }
    return safe(directory_url);
}

std::string certificate_key(std::string_view issuer, std::string_view name,
                            std::string_view extension) {
    const std::string n = safe(name);
    return "certificates/" + safe(issuer) + "/" + n + "/" + n + "." + std::string(extension);
}

std::string account_key(std::string_view issuer, std::string_view email,
                        std::string_view extension) {
    const std::string who = email.empty() ? "default" : safe(email);
    const std::string user = email.empty() ? "default" : safe(email.substr(0, email.find('@')));
    return "acme/" + safe(issuer) + "/users/" + who + "/" + user + "." + std::string(extension);
}

}  // namespace spindle::acme
