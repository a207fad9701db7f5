/*
 * The blocks of one schedule: every allocation the scenario and the step
 * made, freed ones included (alloc.c keeps them, poisoned, until the
 * schedule ends). A table and its lookups, nothing else: the allocator
 * (alloc.c), the memory-error reports (memcheck.c) and the names of
 * addresses (names.c: "'driver' (byte 16 of its block)") all read it, and
 * it calls none of them.
 */
#include "core/part.h"

#include "lockstep/alloc.h"

#include <stdlib.h>

/* This file's part of the schedule's world, through its layer's (core/part.h). */
static inline block_state *st(void) { return &core_now()->block; }

void blocks_reset(void)
{
    for (int i = 0; i < st()->nblocks; ++i)
        free(st()->blocks[i].p);
    st()->nblocks = 0;
}

block *block_add(const block *b)
{
    if (st()->nblocks == MAX_BLOCKS)
        return NULL;
    st()->blocks[st()->nblocks] = *b;
    return &st()->blocks[st()->nblocks++];
}

int block_count(void) { return st()->nblocks; }
block *block_nth(int i) { return &st()->blocks[i]; }

static block *find(const volatile void *addr, bool inside)
{
    const char *a = (const char *)addr;
    for (int i = 0; i < st()->nblocks; ++i) {
        block *b = &st()->blocks[i];
        if (inside ? (a >= b->p && a < b->p + b->size) : a == b->p)
            return b;
    }
    return NULL;
}

block *block_at(const volatile void *addr) { return find(addr, false); }
block *block_in(const volatile void *addr) { return find(addr, true); }

const void *alloc_block_of(const volatile void *addr)
{
    const block *b = block_in(addr);
    return b ? b->p : NULL;
}

bool explore_freed(const volatile void *p)
{
    const block *b = block_at(p);
    return b && b->free_event >= 0;
}

int64_t lockstep_alloc_live(void)
{
    int64_t live = 0;
    for (int i = 0; i < st()->nblocks; ++i)
        live += st()->blocks[i].free_event < 0;
    return live;
}
