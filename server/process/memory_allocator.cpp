#include "server/process/memory_allocator.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string_view>

namespace spindle::server {

std::string malloc_library() {
    // malloc's address comes from the GOT, which holds the definition the dynamic linker chose:
    // whichever library in load order defines it first, whatever this file was compiled
    // against.
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&std::malloc), &info) == 0 || info.dli_fname == nullptr) {
        return {};
    }
    const std::string_view path = info.dli_fname;
    return std::string(path.substr(path.rfind('/') + 1));
}

}  // namespace spindle::server
