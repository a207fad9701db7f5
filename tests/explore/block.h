/*
 * The blocks of one schedule (block.c): what alloc.c hands out, what
 * memcheck.c reports on, and what names.c finds an address in. Its own
 * header, below all three, so that naming an address never calls up into
 * the allocator.
 */
#ifndef LOCKSTEP_EXPLORE_BLOCK_H
#define LOCKSTEP_EXPLORE_BLOCK_H

#include "model.h"

#define MAX_BLOCKS 256 /* allocations in one schedule */

typedef struct block {
    char *p;
    size_t size;
    const explore_site *site; /* where it was allocated; NULL: by common/ (a frame from lockstep_coro_new) */
    void *callers[3];         /* then: who called, for the report (backtrace) */
    int alloc_event;
    int free_event;           /* -1: not freed */
} block;

void blocks_reset(void);                            /* releases every block's memory */
block *block_add(const block *b);                    /* NULL: the table is full */
block *block_at(const volatile void *addr);          /* the block starting at addr */
block *block_in(const volatile void *addr);          /* the block addr lies in */
int block_count(void);
block *block_nth(int i);

/* upcoming.c: the calling thread's next allocation. Whether it fails
 * (injected: lockstep_alloc_fail_nth), and the name explore_name_next_alloc
 * gave it (NULL: none), which it uses up either way. */
typedef struct next_alloc {
    bool fails;
    const char *name;
    bool coro;
} next_alloc;
next_alloc upcoming_take(int thread);
void upcoming_reset(void);

/* memcheck.c: the memory errors, each reported with the events that make it. */
void memcheck_describe(const block *b, char *buf, size_t size); /* "'task' (48 bytes, allocated at task.c:30)" */
_Noreturn void memcheck_double_free(int thread, const block *b, const explore_site *site);
void memcheck_trap(void *frame); /* a freed, named coroutine frame: resuming or destroying it reports */

#endif /* LOCKSTEP_EXPLORE_BLOCK_H */
