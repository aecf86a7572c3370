#include "config/config_file.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "config/caddyfile_adapter.hpp"

namespace spindle::config {

namespace {

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw config_error(std::string("cannot read: ") + std::strerror(errno), path, 0);
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The files of a folder of a glob import; none when the folder does not exist, as Caddy's
// filepath.Glob finds none.
std::vector<std::string> list_files(const std::string& folder) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
        if (entry.is_regular_file(ec)) {
            names.push_back(entry.path().filename().string());
        }
    }
    return names;
}

}  // namespace

loaded_config load_config_file(const std::string& path, const std::string& adapter) {
    const std::string text = read_text(path);
    if (adapter == "json") {
        return {read_json_file(text, path), {}, {}};
    }
    const auto env = [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());
        return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
    };
    adapted_caddyfile adapted = adapt_caddyfile(text, path, env, read_text, list_files);
    return {std::move(adapted.document), std::move(adapted.sources), std::move(adapted.warnings)};
}

}  // namespace spindle::config
