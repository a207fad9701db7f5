/*
 * ThreadSanitizer's ABI: the functions the compiler calls when it builds
 * with -fsanitize=thread. The explorer compiles the step's sources (and the
 * scenario's) a second time with that flag, compile only: the compiler puts
 * a call to __tsan_read8(addr), __tsan_write4(addr), ... before every load
 * and store of memory that may be shared. The explorer is not linked with
 * ThreadSanitizer's runtime: this file defines those entry points, so each
 * plain access of the step reaches the data-race check (datarace.c), and
 * the step sources contain nothing for the explorer.
 *
 * A plain access is also checked against the freed blocks (alloc.c): a
 * read of a freed frame is a use after free, whichever thread makes it.
 */
#include "model.h"

#include <stdio.h>
#include <string.h>

static void plain_access(const volatile void *p, size_t size, bool write, const void *pc, const explore_site *named)
{
    if (!thread_running() || thread_local_memory(p)) /* each thread has its own copy (thread.c) */
        return;
    int t = thread_self();
    path_touch(t, p, size, write, datarace_is_quiet()); /* the search's dependence (step.c) */
    if (datarace_is_quiet())
        return;
    const void *b = alloc_block_of(p);
    if (b && explore_freed(b)) {
        char site[200], what[240];
        if (named)
            name_site(named->file, named->line, site, sizeof site);
        else
            name_code_address(pc, site, sizeof site);
        snprintf(what, sizeof what, "%s at %s", write ? "writes" : "reads", site);
        alloc_check_use(t, p, what, NULL, NULL);
    }
    datarace_plain(t, p, size, write, pc, named);
}

/* A plain access the program names itself (a litmus file's *x, which its
 * interpreter runs): the race check sees it as the instrumentation would
 * report it, and a report names the program's line, not the interpreter's. */
void explore_plain(const volatile void *p, size_t size, bool write, const explore_site *site)
{
    plain_access(p, size, write, NULL, site); /* the site names it: no code address to look up */
}

/* A scenario's read of a plain int another thread writes once, not a peek
 * at the schedule (explore_unchecked), so no dependence on every other step
 * (step.c): whether that write happens before the reader is the
 * execution's, the same in every schedule of it (explore.h). This file is
 * not built with -fsanitize=thread: the read itself leaves no trace in the
 * race check. */
bool explore_read_settled(const volatile int *p, int *value)
{
    if (!datarace_settled(thread_self(), p, sizeof *p))
        return false;
    *value = *p;
    return true;
}


/* The instrumented code's calls, in the names and signatures the compilers
 * emit (gcc and clang agree). Declared here, since no header of the
 * runtime is included. */
#define PC __builtin_return_address(0)
#define PLAIN(n)                                                                                               \
    void __tsan_read##n(void *p);                                                                              \
    void __tsan_write##n(void *p);                                                                             \
    void __tsan_unaligned_read##n(void *p);                                                                    \
    void __tsan_unaligned_write##n(void *p);                                                                   \
    void __tsan_read##n(void *p) { plain_access(p, n, false, PC, NULL); }                                            \
    void __tsan_write##n(void *p) { plain_access(p, n, true, PC, NULL); }                                            \
    void __tsan_unaligned_read##n(void *p) { plain_access(p, n, false, PC, NULL); }                                  \
    void __tsan_unaligned_write##n(void *p) { plain_access(p, n, true, PC, NULL); }
PLAIN(1)
PLAIN(2)
PLAIN(4)
PLAIN(8)
PLAIN(16)

void __tsan_read_range(void *p, unsigned long size);
void __tsan_write_range(void *p, unsigned long size);
void __tsan_read_range(void *p, unsigned long size) { plain_access(p, size, false, PC, NULL); }
void __tsan_write_range(void *p, unsigned long size) { plain_access(p, size, true, PC, NULL); }

void *__tsan_memcpy(void *dst, const void *src, unsigned long size);
void *__tsan_memmove(void *dst, const void *src, unsigned long size);
void *__tsan_memset(void *dst, int c, unsigned long size);
void *__tsan_memcpy(void *dst, const void *src, unsigned long size)
{
    plain_access(src, size, false, PC, NULL);
    plain_access(dst, size, true, PC, NULL);
    return memcpy(dst, src, size);
}
void *__tsan_memmove(void *dst, const void *src, unsigned long size)
{
    plain_access(src, size, false, PC, NULL);
    plain_access(dst, size, true, PC, NULL);
    return memmove(dst, src, size);
}
void *__tsan_memset(void *dst, int c, unsigned long size)
{
    plain_access(dst, size, true, PC, NULL);
    return memset(dst, c, size);
}

/* The module constructor and the call stack: nothing to do. */
void __tsan_init(void);
void __tsan_func_entry(void *caller);
void __tsan_func_exit(void);
void __tsan_init(void) {}
void __tsan_func_entry(void *caller) { (void)caller; }
void __tsan_func_exit(void) {}

/* Atomic operations the hook did not turn into the model's: in the step
 * sources there are none (every atomic there is an atomic_*_explicit call,
 * hook.h), so these are the scenario's own, outside the model. They do the
 * operation and nothing else. */
#define ATOMICS(n, T)                                                                                          \
    T __tsan_atomic##n##_load(const volatile T *a, int mo);                                                   \
    void __tsan_atomic##n##_store(volatile T *a, T v, int mo);                                                 \
    T __tsan_atomic##n##_exchange(volatile T *a, T v, int mo);                                                 \
    T __tsan_atomic##n##_fetch_add(volatile T *a, T v, int mo);                                                \
    T __tsan_atomic##n##_fetch_sub(volatile T *a, T v, int mo);                                                \
    T __tsan_atomic##n##_fetch_and(volatile T *a, T v, int mo);                                                \
    T __tsan_atomic##n##_fetch_or(volatile T *a, T v, int mo);                                                 \
    T __tsan_atomic##n##_fetch_xor(volatile T *a, T v, int mo);                                                \
    int __tsan_atomic##n##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo);                 \
    int __tsan_atomic##n##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo);                   \
    T __tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo);                       \
    T __tsan_atomic##n##_load(const volatile T *a, int mo) { return __atomic_load_n(a, mo); }                  \
    void __tsan_atomic##n##_store(volatile T *a, T v, int mo) { __atomic_store_n(a, v, mo); }                  \
    T __tsan_atomic##n##_exchange(volatile T *a, T v, int mo) { return __atomic_exchange_n(a, v, mo); }        \
    T __tsan_atomic##n##_fetch_add(volatile T *a, T v, int mo) { return __atomic_fetch_add(a, v, mo); }        \
    T __tsan_atomic##n##_fetch_sub(volatile T *a, T v, int mo) { return __atomic_fetch_sub(a, v, mo); }        \
    T __tsan_atomic##n##_fetch_and(volatile T *a, T v, int mo) { return __atomic_fetch_and(a, v, mo); }        \
    T __tsan_atomic##n##_fetch_or(volatile T *a, T v, int mo) { return __atomic_fetch_or(a, v, mo); }          \
    T __tsan_atomic##n##_fetch_xor(volatile T *a, T v, int mo) { return __atomic_fetch_xor(a, v, mo); }        \
    int __tsan_atomic##n##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo)                  \
    {                                                                                                          \
        (void)fmo;                                                                                             \
        return __atomic_compare_exchange_n(a, c, v, 0, mo, __ATOMIC_RELAXED);                                  \
    }                                                                                                          \
    int __tsan_atomic##n##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo)                    \
    {                                                                                                          \
        (void)fmo;                                                                                             \
        return __atomic_compare_exchange_n(a, c, v, 0, mo, __ATOMIC_RELAXED);                                  \
    }                                                                                                          \
    T __tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo)                        \
    {                                                                                                          \
        (void)fmo;                                                                                             \
        __atomic_compare_exchange_n(a, &c, v, 0, mo, __ATOMIC_RELAXED);                                        \
        return c;                                                                                              \
    }
ATOMICS(8, uint8_t)
ATOMICS(16, uint16_t)
ATOMICS(32, uint32_t)
ATOMICS(64, uint64_t)

/* Fences: hook.h rejects atomic_thread_fence in the step sources. */
void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_signal_fence(int mo);
void __tsan_atomic_thread_fence(int mo) { __atomic_thread_fence(mo); }
void __tsan_atomic_signal_fence(int mo) { __atomic_signal_fence(mo); }
