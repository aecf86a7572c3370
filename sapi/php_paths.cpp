#include "sapi/php_paths.hpp"

#include <cstdlib>
#include <system_error>

namespace spindle::sapi {

php_paths php_paths_for(const std::filesystem::path& executable,
                        const std::string& build_extension_dir) {
    const std::filesystem::path prefix = executable.parent_path().parent_path();
    const std::filesystem::path extensions = prefix / "lib" / "spindle" / "extensions";
    std::error_code ec;
    if (!std::filesystem::is_regular_file(extensions / "opcache.so", ec)) {
        return php_paths{build_extension_dir, std::nullopt, std::nullopt};
    }
    const std::filesystem::path etc = prefix / "etc" / "spindle";
    return php_paths{extensions.string(), etc.string(), (etc / "conf.d").string()};
}

const php_paths& current_php_paths() {
    // A static local: built once on first use (thread-safe initialisation), then read only.
    static const php_paths paths = [] {
        std::error_code ec;
        const std::filesystem::path executable =
            std::filesystem::read_symlink("/proc/self/exe", ec);
        return php_paths_for(ec ? std::filesystem::path() : executable, SPINDLE_PHP_EXTENSION_DIR);
    }();
    return paths;
}

std::optional<std::string> ini_search_override(const php_paths& paths) {
    if (std::getenv("PHPRC") != nullptr) {
        return std::nullopt;
    }
    return paths.ini_dir;
}

ini_scan_dir_scope::ini_scan_dir_scope(const php_paths& paths) {
    if (paths.scan_dir && std::getenv("PHP_INI_SCAN_DIR") == nullptr) {
        set_ = setenv("PHP_INI_SCAN_DIR", paths.scan_dir->c_str(), 1) == 0;
    }
}

ini_scan_dir_scope::~ini_scan_dir_scope() {
    if (set_) {
        unsetenv("PHP_INI_SCAN_DIR");
    }
}

}  // namespace spindle::sapi
