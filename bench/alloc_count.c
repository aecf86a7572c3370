// An LD_PRELOAD shim that counts the process's malloc-family calls and C++ operator new calls,
// and prints the totals at exit, for bench/allocations.sh. PHP's own allocations (ZendMM) do
// not come through here: what it counts is Spindle's, libstdc++'s, Asio's and the C library's.
// Each call goes on to the allocator next in load order (jemalloc in a normal build, glibc's
// malloc in a SPINDLE_MALLOC=system one), so every block is freed by the allocator that made
// it. operator new is counted here because jemalloc defines its own, which would not call
// malloc.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_ullong allocations;
static atomic_ullong bytes;

static void* (*next_malloc)(size_t);
static void* (*next_calloc)(size_t, size_t);
static void* (*next_realloc)(void*, size_t);
static int (*next_posix_memalign)(void**, size_t, size_t);
static void* (*next_aligned_alloc)(size_t, size_t);
static void (*next_free)(void*);

// dlsym() may allocate (calloc) before the real functions are known: that comes from here.
static _Alignas(16) char bootstrap[8192];
static size_t bootstrap_used;

static int in_bootstrap(const void* ptr) {
    return (const char*)ptr >= bootstrap && (const char*)ptr < bootstrap + sizeof bootstrap;
}

static void* bootstrap_alloc(size_t size) {
    size = (size + 15) & ~(size_t)15;
    if (bootstrap_used + size > sizeof bootstrap) {
        return NULL;
    }
    void* p = bootstrap + bootstrap_used;
    bootstrap_used += size;
    return p;
}

static void resolve(void) {
    static atomic_int resolving;
    if (next_free != NULL || atomic_exchange(&resolving, 1)) {
        return;
    }
    next_malloc = dlsym(RTLD_NEXT, "malloc");
    next_calloc = dlsym(RTLD_NEXT, "calloc");
    next_realloc = dlsym(RTLD_NEXT, "realloc");
    next_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    next_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    next_free = dlsym(RTLD_NEXT, "free");
}

static void count(size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
}

void* malloc(size_t size) {
    resolve();
    if (next_malloc == NULL) {
        return bootstrap_alloc(size);
    }
    count(size);
    return next_malloc(size);
}

void* calloc(size_t n, size_t size) {
    resolve();
    if (next_calloc == NULL) {
        return bootstrap_alloc(n * size);  // static memory is zeroed
    }
    count(n * size);
    return next_calloc(n, size);
}

void* realloc(void* ptr, size_t size) {
    resolve();
    count(size);
    return next_realloc(ptr, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
    resolve();
    count(size);
    return next_posix_memalign(out, alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
    resolve();
    count(size);
    return next_aligned_alloc(alignment, size);
}

void* memalign(size_t alignment, size_t size) {
    void* p = NULL;
    return posix_memalign(&p, alignment, size) == 0 ? p : NULL;
}

void free(void* ptr) {
    if (ptr == NULL || in_bootstrap(ptr)) {
        return;
    }
    resolve();
    next_free(ptr);
}

// operator new(size_t), new[](size_t), and their nothrow forms. The aligned forms are rare
// (over-aligned types) and left to the allocator.
static void* counted_new(size_t size) {
    void* p = malloc(size == 0 ? 1 : size);
    if (p == NULL) {
        abort();  // a benchmark tool: no std::bad_alloc from C
    }
    return p;
}
void* _Znwm(size_t size) {
    return counted_new(size);
}
void* _Znam(size_t size) {
    return counted_new(size);
}
void* _ZnwmRKSt9nothrow_t(size_t size, const void* tag) {
    (void)tag;
    return malloc(size ? size : 1);
}
void* _ZnamRKSt9nothrow_t(size_t size, const void* tag) {
    (void)tag;
    return malloc(size ? size : 1);
}

__attribute__((destructor)) static void report(void) {
    fprintf(stderr, "alloc_count: %llu allocations, %llu bytes\n",
            (unsigned long long)atomic_load(&allocations), (unsigned long long)atomic_load(&bytes));
}
