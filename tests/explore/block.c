/*
 * The blocks of one schedule: every allocation the scenario and the step
 * made, freed ones included (alloc.c keeps them, poisoned, until the
 * schedule ends). A table and its lookups, nothing else: the allocator
 * (alloc.c), the memory-error reports (memcheck.c) and the names of
 * addresses (names.c: "'driver' (byte 16 of its block)") all read it, and
 * it calls none of them.
 */
#include "block.h"

#include "lockstep/alloc.h"

#include <stdlib.h>

static block g_blocks[MAX_BLOCKS];
static int g_nblocks;

void blocks_reset(void)
{
    for (int i = 0; i < g_nblocks; ++i)
        free(g_blocks[i].p);
    g_nblocks = 0;
}

block *block_add(const block *b)
{
    if (g_nblocks == MAX_BLOCKS)
        return NULL;
    g_blocks[g_nblocks] = *b;
    return &g_blocks[g_nblocks++];
}

int block_count(void) { return g_nblocks; }
block *block_nth(int i) { return &g_blocks[i]; }

static block *find(const volatile void *addr, bool inside)
{
    const char *a = (const char *)addr;
    for (int i = 0; i < g_nblocks; ++i) {
        block *b = &g_blocks[i];
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
    for (int i = 0; i < g_nblocks; ++i)
        live += g_blocks[i].free_event < 0;
    return live;
}
