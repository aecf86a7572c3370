#pragma once

namespace spindle::sapi {

class env_snapshot;

/// The environment the calling thread's scripts see: its worker's, or the server's.
const env_snapshot& current_environment() noexcept;

/// Replaces PHP's getenv() and putenv() with per-thread versions: putenv() writes the slot's
/// overlay instead of the process environment (which PHP threads must never change: other
/// threads, and C libraries, read it without PHP's lock), getenv() reads the overlay, then the
/// request's $_SERVER (as php-fpm's getenv() sees its FastCGI parameters), then the
/// environment snapshot. On each slot thread, once, after ts_resource(): in ZTS every thread
/// gets its own copy of the internal function entries.
void install_env_functions();

}  // namespace spindle::sapi
