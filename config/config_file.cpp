#include "config/config_file.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

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

}  // namespace

loaded_config load_config_file(const std::string& path, const std::string& adapter) {
    return load_config_text(read_text(path), path, adapter);
}

loaded_config load_config_text(const std::string& text, const std::string& path,
                               const std::string& adapter) {
    if (adapter == "json") {
        return {read_json_file(text, path), {}, {}};
    }
    const auto env = [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());
        return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
    };
    adapted_caddyfile adapted = adapt_caddyfile(text, path, env, read_text);
    return {std::move(adapted.document), std::move(adapted.sources), std::move(adapted.warnings)};
}

}  // namespace spindle::config
