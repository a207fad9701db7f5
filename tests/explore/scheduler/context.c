/*
 * Contexts: a stack each, and the switch between them (context.h), which
 * thread.c's coroutines take turns by.
 *
 * ucontext, not a switch of our own in assembly: POSIX's (removed from
 * POSIX.1-2008, kept by glibc and musl, deprecated but present on macOS,
 * where _XOPEN_SOURCE unlocks it), one API on x86-64 and arm64 alike, and
 * a few lines a reader can follow. Its price, a signal-mask system call
 * per switch in glibc, is a fraction of a microsecond. A stack is as large
 * as a real thread's would be for what the steps do (a resume chain that
 * nests is what `stack grows` reports), mapped lazily, with a guard page
 * below it so that an overflow faults (crash.c reports it) instead of
 * writing over a neighbour.
 *
 * In a browser (Emscripten: explore_litmus for the course's playground)
 * WebAssembly has no way to switch stacks, and Emscripten's fibers take
 * its place: Asyncify unwinds the running call stack into a buffer and
 * rewinds the other one's. The same three calls, slower, and only there.
 *
 * Under the asan preset the explorer's own code is built with
 * AddressSanitizer, which must be told of every switch of stacks, or it
 * takes the new stack for a wild one: context_switch announces each
 * (__sanitizer_start_switch_fiber) and the context that resumes confirms
 * it (__sanitizer_finish_switch_fiber), and a stack is cleared of the
 * poison its last run left before a context starts afresh on it.
 * ThreadSanitizer's fiber API has no use here: the explorer is the
 * ThreadSanitizer runtime for the code it runs (tsan.c defines __tsan_*),
 * so it is never built with the real one.
 */
#define _XOPEN_SOURCE 700 /* ucontext (before any header) */
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE /* and MAP_ANON */
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
#else
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#endif
#include "scheduler/context.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef __EMSCRIPTEN__
#include <emscripten/fiber.h>
#else
#include <sys/mman.h>
#include <ucontext.h>
#endif

#ifndef MAP_ANONYMOUS
#define MAP_ANONYMOUS MAP_ANON
#endif

#if defined(__SANITIZE_ADDRESS__)
#define EXPLORE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EXPLORE_ASAN 1
#endif
#endif
#ifdef EXPLORE_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(EXPLORE_ASAN) && defined(__GLIBC__)
#include <dlfcn.h>
#endif

#define STACK_SIZE (1024 * 1024)
#define ASYNCIFY_SIZE (64 * 1024) /* Emscripten: the unwound call stack of a fiber off the CPU */

struct context {
#ifdef __EMSCRIPTEN__
    emscripten_fiber_t fiber;
    unsigned char *asyncify;
#else
    ucontext_t uc;
#endif
    unsigned char *stack; /* its bottom (above the guard page); NULL: main's own */
    void (*entry)(void);
    /* AddressSanitizer's view of its stack: where it lies (main's: as the
     * first switch back to it reported) and its fake stack while it is off
     * the CPU. */
    const void *asan_bottom;
    size_t asan_size;
    void *asan_fake;
};

/* The last switch's two ends: the context arriving on the CPU (a fresh
 * one's entry asks which it is: ucontext passes it nothing) and the one it
 * came from (AddressSanitizer asks). The CPU's, like registers. */
static context *g_arriving, *g_leaving;

static void no_memory(const char *what)
{
    fprintf(stderr, "explore: no memory for %s\n", what);
    exit(2);
}

static unsigned char *new_stack(void)
{
#ifdef __EMSCRIPTEN__
    unsigned char *stack = malloc(STACK_SIZE); /* no pages to guard in WebAssembly's linear memory */
    if (!stack)
        no_memory("a thread's stack");
    return stack;
#else
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *map = mmap(NULL, STACK_SIZE + (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                              -1, 0);
    if (map == MAP_FAILED || mprotect(map, (size_t)page, PROT_NONE) != 0) {
        perror("explore: a thread's stack");
        exit(2);
    }
    return map + page;
#endif
}

context *context_new(bool main)
{
    context *c = calloc(1, sizeof *c);
    if (!c)
        no_memory("a thread");
#ifdef __EMSCRIPTEN__
    c->asyncify = malloc(ASYNCIFY_SIZE);
    if (!c->asyncify)
        no_memory("a thread's unwound stack");
    if (main)
        emscripten_fiber_init_from_current_context(&c->fiber, c->asyncify, ASYNCIFY_SIZE);
#endif
    if (!main) {
        c->stack = new_stack();
        c->asan_bottom = c->stack;
        c->asan_size = STACK_SIZE;
    }
    return c;
}

/* AddressSanitizer's half of a switch (a no-op without it): before it, the
 * stack about to run (a context that has finished will never run on again:
 * its fake stack goes); after it, on the stack that runs again, which one
 * it came from. */
static void asan_leaving(context *from, const context *to, bool for_good)
{
#ifdef EXPLORE_ASAN
    __sanitizer_start_switch_fiber(for_good ? NULL : &from->asan_fake, to->asan_bottom, to->asan_size);
#else
    (void)from, (void)to, (void)for_good;
#endif
}

static void asan_arrived(context *self, context *from)
{
#ifdef EXPLORE_ASAN
    __sanitizer_finish_switch_fiber(self ? self->asan_fake : NULL, &from->asan_bottom, &from->asan_size);
#else
    (void)self, (void)from;
#endif
}

#ifdef __EMSCRIPTEN__
static void fiber_entry(void *arg)
{
    context *c = arg;
    c->entry();
}
#else
/* A fresh context's first moments, on its own stack. */
static void uc_entry(void)
{
    context *self = g_arriving;
    asan_arrived(NULL, g_leaving); /* no fake stack yet */
    self->entry();
}
#endif

void context_start(context *c, void (*entry)(void))
{
    c->entry = entry;
#ifdef EXPLORE_ASAN
    ASAN_UNPOISON_MEMORY_REGION(c->stack, STACK_SIZE); /* its last run's frames are gone */
#endif
#ifdef __EMSCRIPTEN__
    emscripten_fiber_init(&c->fiber, fiber_entry, c, c->stack, STACK_SIZE, c->asyncify, ASYNCIFY_SIZE);
#else
    if (getcontext(&c->uc) != 0) {
        perror("explore: getcontext");
        exit(2);
    }
    c->uc.uc_stack.ss_sp = c->stack;
    c->uc.uc_stack.ss_size = STACK_SIZE;
    c->uc.uc_link = NULL;
    makecontext(&c->uc, uc_entry, 0);
#endif
}

#ifndef __EMSCRIPTEN__
/* swapcontext. Under AddressSanitizer with glibc, libc's own: the
 * sanitizer's interceptor, which knows nothing of the fiber annotations,
 * clears the shadow of the whole stack it switches to (a megabyte's worth,
 * a system call, on every switch: the explore label took nine times as
 * long), and so forgets the redzones of the frames still live on it. */
static int swap(ucontext_t *from, const ucontext_t *to)
{
#if defined(EXPLORE_ASAN) && defined(__GLIBC__)
    static int (*libc_swapcontext)(ucontext_t *, const ucontext_t *);
    if (!libc_swapcontext) {
        void *libc = dlopen("libc.so.6", RTLD_LAZY);
        if (libc)
            *(void **)&libc_swapcontext = dlsym(libc, "swapcontext");
        if (!libc_swapcontext)
            libc_swapcontext = swapcontext;
    }
    return libc_swapcontext(from, to);
#else
    return swapcontext(from, to);
#endif
}
#endif

void context_switch(context *from, context *to, bool for_good)
{
    g_leaving = from;
    g_arriving = to;
    asan_leaving(from, to, for_good);
#ifdef __EMSCRIPTEN__
    emscripten_fiber_swap(&from->fiber, &to->fiber);
#else
    if (swap(&from->uc, &to->uc) != 0) {
        perror("explore: swapcontext");
        exit(2);
    }
#endif
    asan_arrived(from, g_leaving);
}
