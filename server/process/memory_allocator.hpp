#pragma once

#include <string>

namespace spindle::server {

/// The file name of the shared object whose malloc() this process calls ("libjemalloc.so.2",
/// "libc.so.6"), as the dynamic linker bound it; "" if it cannot be told. `spindle version`
/// and the start-up log print it, so an operator can see which allocator a build runs.
std::string malloc_library();

}  // namespace spindle::server
