/*
 * The explorer's lockstep_alloc / lockstep_free (it replaces
 * common/src/alloc.c in the explorer's binaries), built to catch memory
 * errors in one schedule:
 *
 * - a freed block is filled with poison and kept (quarantined, block.c)
 *   until the schedule ends, never reused, so a later access cannot hit a
 *   new owner, and memcheck.c can say who freed it and where;
 * - the poison is the address of an inaccessible guard region, so a pointer
 *   read out of a freed block by plain code faults at a recognizable address
 *   (crash.c says so);
 * - a freed coroutine frame that the scenario named gets a trap as its
 *   resume function (memcheck.c): resuming it reports instead of jumping
 *   into poison;
 * - freeing is a write to every byte of the block (datarace.c), after every
 *   other thread's last use of it, or it races with that use;
 * - like common's, it can be told to fail a thread's n-th allocation, and
 *   it names blocks a library call allocates where the scenario cannot see
 *   them (upcoming.c).
 *
 * Only one scenario thread runs at a time, so no lock is needed here.
 */
/* MAP_ANONYMOUS is not in POSIX 2008, which the project asks for. */
#define _DEFAULT_SOURCE

#include "memory/part.h"

#include "lockstep/alloc.h"
#include "lockstep/coro.h"

#ifndef __EMSCRIPTEN__
#include <execinfo.h> /* backtrace: who called common's allocator (WebAssembly has none to give) */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define GUARD_SIZE (1u << 16)

/* This file's part of the schedule's world, through its layer's (memory/part.h). */
static inline alloc_state *st(void) { return &memory_now()->alloc; }

/* Whether addr lies in the guard region freed blocks point into (crash.c). */
bool alloc_is_poison(const void *addr)
{
    return st()->guard && (const char *)addr >= st()->guard && (const char *)addr < st()->guard + GUARD_SIZE;
}

const void *alloc_poison(void) { return st()->guard + GUARD_SIZE / 2; }

void alloc_reset(void)
{
    blocks_reset();
    upcoming_reset();
}

static void map_guard(void)
{
    if (st()->guard)
        return;
    st()->guard = mmap(NULL, GUARD_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (st()->guard == MAP_FAILED) {
        perror("explore: mmap");
        exit(2);
    }
}

static void *alloc(size_t size, const explore_site *site, void *const *callers)
{
    map_guard();
    int self = thread_self();
    next_alloc next = upcoming_take(self);
    /* A trace line for the scenario threads' allocations that say something:
     * a site in the step's code, or a name. */
    bool traced = self != EXPLORE_MAIN && (site || next.name);
    event *e = traced ? event_new(EV_ALLOC, self, site) : event_silent(EV_ALLOC, self, site);
    e->size = size;
    if (next.name)
        snprintf(e->text, sizeof e->text, "%s", next.name);
    if (next.fails) {
        e->failed = true;
        if (!traced) /* a failure is always worth a line */
            *e = *event_new(EV_ALLOC, self, site);
        return NULL;
    }
    char *p = malloc(size ? size : 1);
    if (!p) {
        fputs("explore: out of memory\n", stderr);
        exit(2);
    }
    block b = {.p = p, .size = size ? size : 1, .site = site, .alloc_event = event_index(e), .free_event = -1};
    if (callers)
        memcpy(b.callers, callers, sizeof b.callers);
    if (!block_add(&b)) {
        free(p);
        explore_fail("explorer", "more than %d allocations in one schedule", MAX_BLOCKS);
    }
    e->obj = p;
    if (next.name && next.coro)
        explore_name_coro(p, next.name);
    else if (next.name)
        explore_name(p, next.name);
    return p;
}

void *explore_alloc_at(size_t size, const explore_site *site) { return alloc(size, site, NULL); }

/* Fills a freed block with the poison address, word by word. */
static void poison(block *b)
{
    uintptr_t poison = (uintptr_t)alloc_poison();
    size_t words = b->size / sizeof poison;
    memset(b->p, 0xa5, b->size);
    for (size_t i = 0; i < words; ++i)
        memcpy(b->p + i * sizeof poison, &poison, sizeof poison);
}

void explore_free_at(void *p, const explore_site *site)
{
    if (!p)
        return;
    int self = thread_self();
    block *b = block_at(p);
    if (!b) {
        char at[64] = "lockstep_free";
        if (site)
            snprintf(at, sizeof at, "%s:%d", base_name(site->file), site->line);
        explore_fail("bad free", "%s frees %p, which lockstep_alloc did not return", at, p);
    }
    if (b->free_event >= 0)
        memcheck_double_free(self, b, site);
    event *e = event_new(EV_FREE, self, site);
    e->obj = b->p;
    if (thread_running()) {
        datarace_free(self, b->p, b->size, e);
        path_touch(self, b->p, b->size, true, false); /* a write of the block (step.c) */
    }
    location_forget(b->p, b->size);
    b->free_event = event_index(e);
    poison(b);
    if (name_is_coro(p) && b->size >= sizeof(lockstep_coro))
        memcheck_trap(p);
}

/* common/'s calls (coro.c, not hooked): no site, so who called is kept. */
void *lockstep_alloc(size_t size)
{
    void *callers[5] = {0};
#ifdef __EMSCRIPTEN__
    int n = 0;
#else
    int n = backtrace(callers, 5); /* [0] is here, [1] lockstep_coro_new, then its caller */
#endif
    return alloc(size, NULL, n > 1 ? callers + 1 : NULL);
}

void lockstep_free(void *p) { explore_free_at(p, NULL); }
