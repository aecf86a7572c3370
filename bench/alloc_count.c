// An LD_PRELOAD shim that counts the process's malloc-family calls and prints the totals at
// exit, for bench/allocations.sh. PHP's own allocations (ZendMM) do not come through here:
// what it counts is Spindle's, libstdc++'s, Asio's and the C library's.
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t count, size_t size);
extern void* __libc_realloc(void* ptr, size_t size);
extern void* __libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void* ptr);

static atomic_ullong allocations;
static atomic_ullong bytes;

void* malloc(size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
    return __libc_malloc(size);
}

void* calloc(size_t count, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes, count * size, memory_order_relaxed);
    return __libc_calloc(count, size);
}

void* realloc(void* ptr, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
    return __libc_realloc(ptr, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
    void* p = __libc_memalign(alignment, size);
    if (p == NULL) {
        return ENOMEM;
    }
    *out = p;
    return 0;
}

void* aligned_alloc(size_t alignment, size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
    return __libc_memalign(alignment, size);
}

void free(void* ptr) {
    __libc_free(ptr);
}

__attribute__((destructor)) static void report(void) {
    fprintf(stderr, "alloc_count: %llu allocations, %llu bytes\n",
            (unsigned long long)atomic_load(&allocations), (unsigned long long)atomic_load(&bytes));
}
