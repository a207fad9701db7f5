/*
 * What a GenMC program here puts in place of common/src: the allocator and
 * coro.c's two functions. Everything else (each file of the step's src, common's
 * headers, tests/support's task bodies) is #included as it is.
 *
 * lockstep_alloc is malloc, as in the explorer (its alloc.c replaces
 * common's, whose per-thread counters, mutex and pthread key would be
 * events of their own, or beyond GenMC), with a count of what each thread
 * allocated and freed, for the leak check.
 *
 * lockstep_coro_new zeroes the frame it makes, with memset in coro.c.
 * GenMC can zero a heap block only by its fields: it rejects a memset it
 * cannot turn into typed stores (a heap block has no type in LLVM 16's IR),
 * and bytes written one by one and read back as an int are mixed-size
 * accesses, which it rejects too. So each program defines
 * genmc_zero_frame(h, size), which zeroes the fields of the frame types it
 * makes, by name; lockstep_coro_new is otherwise coro.c's.
 */
#ifndef LOCKSTEP_GENMC_H
#define LOCKSTEP_GENMC_H

#include <assert.h>
#include <stdlib.h>

#include "lockstep/alloc.h"
#include "lockstep/coro.h"

/* Blocks alive, counted by each thread for itself: a count the threads
 * shared would be a data race, or, atomic, add executions. A thread hands
 * its count to main when it ends (pthread_exit's value), and main checks
 * that the sum is 0 (nothing leaked). */
static _Thread_local int genmc_live;

void *lockstep_alloc(size_t size)
{
    ++genmc_live;
    return malloc(size ? size : 1);
}

void lockstep_free(void *p)
{
    if (p)
        --genmc_live;
    free(p);
}

/* Zeroes every field of the frame h, of size bytes, that the program made. */
static void genmc_zero_frame(lockstep_coro *h, size_t size);

lockstep_coro *lockstep_coro_new(size_t frame_size, lockstep_resume_fn resume, lockstep_destroy_fn destroy)
{
    assert(frame_size >= sizeof(lockstep_coro) && "lockstep_coro_new: frame smaller than its header");
    lockstep_coro *h = lockstep_alloc(frame_size);
    if (!h)
        return NULL;
    genmc_zero_frame(h, frame_size);
    lockstep_coro_init(h, resume, destroy);
    return h;
}

void lockstep_coro_free(lockstep_coro *h) { lockstep_free(h); }

#endif
