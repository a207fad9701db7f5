/*
 * A thread's next allocations, as the scenario plans them: an injected
 * failure (lockstep_alloc_fail_nth and the rest, from lockstep/alloc.h,
 * counted as common/src/alloc.c counts them), and the names
 * explore_name_next_alloc gives blocks that a library call allocates where
 * the scenario cannot see them (the sequencer's node and wrapper frame).
 * Per thread (explore_self(); EXPLORE_MAIN the main thread), reset before
 * each schedule. alloc.c takes one plan per allocation.
 */
#include "memory/part.h"

#include "lockstep/alloc.h"

#include <string.h>

/* This file's part of the schedule's world, through its layer's (memory/part.h). */
static inline upcoming_state *st(void) { return &memory_now()->upcoming; }

void upcoming_reset(void) { memset(st()->threads, 0, sizeof st()->threads); }

static upcoming *mine(void) { return &st()->threads[thread_self()]; }

/* As common/src/alloc.c: the countdown reaches zero on the failing call. */
static bool inject_failure(upcoming *u)
{
    if (u->failing)
        return true;
    if (u->countdown == 0 || --u->countdown != 0)
        return false;
    u->failing = u->fail_rest;
    return true;
}

next_alloc upcoming_take(int thread)
{
    upcoming *u = &st()->threads[thread];
    next_alloc next = {.fails = false};
    if (u->nnames > 0) { /* a failed allocation uses its name up too */
        next.name = u->names[0];
        next.coro = u->coro[0];
        --u->nnames;
        memmove(u->names, u->names + 1, (size_t)u->nnames * sizeof u->names[0]);
        memmove(u->coro, u->coro + 1, (size_t)u->nnames * sizeof u->coro[0]);
    }
    next.fails = inject_failure(u);
    return next;
}

void lockstep_alloc_fail_nth(uint64_t n)
{
    upcoming *u = mine();
    u->countdown = n;
    u->fail_rest = false;
    u->failing = false;
}

void lockstep_alloc_fail_after(uint64_t n)
{
    upcoming *u = mine();
    u->countdown = n + 1;
    u->fail_rest = true;
    u->failing = false;
}

void lockstep_alloc_fail_none(void) { lockstep_alloc_fail_nth(0); }

void explore_name_next_alloc(const char *name, bool coro)
{
    upcoming *u = mine();
    if (!name) {
        u->nnames = 0;
        return;
    }
    if (u->nnames == MAX_UPCOMING_NAMES)
        explore_fail("explorer", "more than %d names for the next allocations of a thread", MAX_UPCOMING_NAMES);
    u->names[u->nnames] = name;
    u->coro[u->nnames++] = coro;
}
