/*
 * Fences: atomic_thread_fence (C11 7.17.4), in the vector-clock form that
 * CDSChecker, GenMC's predecessors and loom use.
 *
 *   - A release fence A, then a store X of the same thread to M, then an
 *     acquire that reads X (or a store of the release sequence X would head
 *     if it were a release): A synchronizes with the acquire (7.17.4p2).
 *     So the fence records its thread's clock, and every later store of the
 *     thread carries it as the head of its sequence (location.c).
 *   - A store that heads a release sequence, then a relaxed load of another
 *     thread that reads it, then an acquire fence B of that thread: the
 *     release synchronizes with B (p3), and with a release fence before the
 *     store, the two fences do (p4). So every load hands the heads of the
 *     store it read to its thread's pending clock, and an acquire fence
 *     joins that clock.
 *   - acq_rel is both; seq_cst is both and takes part in the seq_cst order
 *     (psc.c: RC11's psc_F, which orders seq_cst fences by hb and by what
 *     their threads read and wrote between them; p5-p7 say the same for C11).
 *   - A relaxed fence does nothing (p1: "no effects").
 *
 * atomic_signal_fence orders a thread against a signal handler running on
 * that same thread (p5): the explorer runs no signal handlers, so it is
 * only a compiler barrier, and hook.h makes it one.
 */
#include "model/part.h"

#include <string.h>

/* This file's part of the schedule's world, through its layer's (model/part.h). */
static inline fence_state *st(void) { return &model_now()->fence; }

void fence_reset(void)
{
    memset(st()->released, 0, sizeof st()->released);
    memset(st()->pending, 0, sizeof st()->pending);
}

const vclock *fence_released(int thread) { return &st()->released[thread]; }

void fence_saw(int thread, const vclock rs[THREADS])
{
    for (int v = 0; v < THREADS; ++v)
        if (v != thread)
            clock_vjoin(&st()->pending[thread], &rs[v]);
}

/* A fence at event E (its thread's turn taken, its order decided: point.c). */
void fence_do(event *e)
{
    int self = e->thread;
    if (order_acquires(e->order)) /* p3-p4: what the loads before it read now synchronizes */
        clock_join(self, &st()->pending[self]);
    if (order_releases(e->order)) /* p2: the stores after it carry this clock */
        st()->released[self] = *clock_of(self);
}
