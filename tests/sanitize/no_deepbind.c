/* Preloaded into Spindle under AddressSanitizer (scripts/sanitize.sh). PHP loads Zend
 * extensions such as opcache.so with dlopen(RTLD_DEEPBIND), which ASan refuses: a library
 * bound deep would call the real malloc instead of ASan's. Dropping the flag keeps the normal
 * symbol lookup, which is what an ASan build needs and what PHP works with everywhere
 * RTLD_DEEPBIND does not exist. */
#define _GNU_SOURCE
#include <dlfcn.h>

void* dlopen(const char* file, int mode) {
    static void* (*real_dlopen)(const char*, int);
    if (real_dlopen == 0) {
        real_dlopen = (void* (*)(const char*, int))dlsym(RTLD_NEXT, "dlopen");
    }
    return real_dlopen(file, mode & ~RTLD_DEEPBIND);
}
