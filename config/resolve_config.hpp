#pragma once

#include <cstddef>

#include "config/server_config.hpp"

namespace spindle::config {

/// Checks a parsed configuration against the machine and fills in what depends on it, before
/// anything starts: each site's root becomes canonical and must be a directory; worker files
/// become absolute and must be files (a relative file is looked up in the current directory,
/// then under the site's root, or the first site's for global workers); worker names and
/// thread counts get their defaults (`cores`: the CPUs the process may use, its cgroup's CPU
/// quota included; main.cpp); two sites may not answer the same host on the same address.
/// Throws config_error at the setting's file:line. Control thread.
void resolve_config(server_config& config, std::size_t cores);

/// The URL path of a script: its place under `root`, or "/name" when it lives elsewhere.
std::string script_name_under(const std::string& file, const std::string& root);

/// Whether `file` lies under `root` (both absolute and normal).
bool is_under_root(const std::string& file, const std::string& root);

}  // namespace spindle::config
