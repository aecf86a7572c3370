#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace spindle::sapi {

/// Where this binary's PHP keeps its extensions and php.ini. Two layouts exist:
///
/// - the build tree (`build/spindle`): libphp, the extensions and php.ini stay in the PHP build
///   cache (scripts/build-php.sh), whose paths libphp was compiled with;
/// - an installed tree (`cmake --install`, scripts/install.sh): PREFIX/bin/spindle,
///   PREFIX/lib/spindle/{libphp.so,extensions/} and PREFIX/etc/spindle/{php.ini,conf.d/}, found
///   relative to the binary so that the whole tree can move (the binary's run path is
///   `$ORIGIN/../lib/spindle` for the same reason).
struct php_paths {
    /// opcache.so and the shared extensions (the `extension_dir` default).
    std::string extension_dir;
    /// Installed tree only: the folder searched for php.ini, and the scan folder of additional
    /// .ini files (what PHP_INI_SCAN_DIR names when it is set). Empty in the build tree, where
    /// PHP's compiled-in search applies.
    std::optional<std::string> ini_dir;
    std::optional<std::string> scan_dir;
};

/// The layout of the binary at `executable` (resolved, no symlink): installed when
/// `executable`'s folder's ../lib/spindle/extensions holds opcache.so, the build tree
/// otherwise (then `build_extension_dir`, the one of the PHP Spindle was built against).
php_paths php_paths_for(const std::filesystem::path& executable,
                        const std::string& build_extension_dir);

/// php_paths_for() of the running binary (/proc/self/exe), computed once. Any thread.
const php_paths& current_php_paths();

/// Where PHP should look for php.ini when no file was named (--php-ini, php -c): the installed
/// tree's ini_dir, unless PHPRC names a folder, which PHP's own search then honours as usual.
std::optional<std::string> ini_search_override(const php_paths& paths);

}  // namespace spindle::sapi

namespace spindle::sapi {

/// Points PHP's start-up at the installed tree's scan folder: PHP reads the scan folder only
/// from PHP_INI_SCAN_DIR or its compiled-in path (main/php_ini.c), which in an installed tree
/// names the build machine's cache. Sets the variable for the scope's life when the operator
/// did not set it and the tree has one, and removes it again, so scripts never see it. Control
/// thread, around php_module_startup(), after the environment was imported.
class ini_scan_dir_scope {
  public:
    explicit ini_scan_dir_scope(const php_paths& paths);
    ~ini_scan_dir_scope();
    ini_scan_dir_scope(const ini_scan_dir_scope&) = delete;
    ini_scan_dir_scope& operator=(const ini_scan_dir_scope&) = delete;

  private:
    bool set_ = false;
};

}  // namespace spindle::sapi
