#pragma once
// The file patterns of a worker's `watch`: which changed files restart the workers.
// Pure functions, no I/O; server/process/file_watcher.cpp watches the directories they name.

#include <string>
#include <string_view>
#include <vector>

namespace spindle::config {

/// What `watch` without patterns watches, as in FrankenPHP: the app's code and configuration
/// under the current directory.
inline constexpr std::string_view default_watch_pattern = "./**/*.{php,yaml,yml,twig,env}";

/// "DIR/NAME", "DIR/**/NAME" or "DIR/**", as FrankenPHP's watch patterns are written: NAME is
/// a file-name glob (`*`, `?`, `[...]`, and `{a,b}` alternatives); `**` takes every directory
/// below DIR, at any depth. Wildcards elsewhere in the path are refused.
struct watch_pattern {
    std::string text;                ///< as configured
    std::string directory;           ///< absolute, without a trailing '/'
    bool recursive = false;          ///< DIR/**/...: subdirectories too
    std::vector<std::string> names;  ///< globs for the file name, alternatives expanded
};

/// Reads `text`, relative to `cwd` when not absolute ("./**/*.php"). Throws
/// std::invalid_argument with a reason when the pattern has wildcards outside the file name.
watch_pattern parse_watch_pattern(std::string_view text, const std::string& cwd);

/// Whether the absolute `path` of a changed file is one the pattern names.
bool matches(const watch_pattern& pattern, std::string_view path);

/// `{a,b}` alternatives written out: "*.{php,env}" gives "*.php" and "*.env".
std::vector<std::string> expand_alternatives(std::string_view glob);

}  // namespace spindle::config
