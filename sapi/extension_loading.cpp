// How PHP loads extensions into Spindle: every dlopen() of the process goes through here
// (libphp calls it through its PLT, and the executable exports this definition; see
// server/CMakeLists.txt). Runs on the thread loading a library: the main thread at start-up,
// a slot thread for dl().

#include <dlfcn.h>

// PHP 8.2 opens extensions with RTLD_DEEPBIND (DL_LOAD in Zend/zend_portability.h): an
// extension then binds malloc() and free() to the C library's before the process's own. The
// process's allocator is jemalloc (SPINDLE_MALLOC), so memory PHP allocated would be freed by
// the C library's free() inside the extension: "free(): invalid pointer" and an abort, first
// seen with APCu. Without the flag, symbols bind as everywhere else in the process, as they do
// where RTLD_DEEPBIND does not exist and under AddressSanitizer (which refuses the flag).
extern "C" void* dlopen(const char* file, int mode) noexcept {
    using dlopen_function = void* (*)(const char*, int);
    static const auto next = reinterpret_cast<dlopen_function>(dlsym(RTLD_NEXT, "dlopen"));
    return next(file, mode & ~RTLD_DEEPBIND);
}
