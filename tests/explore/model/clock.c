/*
 * Happens-before, kept as vector clocks (Lamport; Mattern; the way loom,
 * CDSChecker and ThreadSanitizer keep it).
 *
 * Each thread u counts its own steps in c[u] of its clock. Its clock's other
 * components say how far each other thread's history happens before u's
 * current point: thread v's step e happens before it iff u's c[v] >= e.
 *
 * A thread's count moves on after every synchronizing operation (clock_tick):
 * everything it does between two of them shares one epoch, and whatever it
 * does after a release is a later epoch than the clock the release published,
 * so a thread that acquires that release is not ordered after it.
 *
 * C11 5.1.2.4 (inter-thread happens before, happens before) is built from
 * "synchronizes with" and sequenced-before; a join of the releasing clock
 * into the acquiring thread's clock is exactly one synchronizes-with edge,
 * and the clocks' transitivity is the relation's.
 *
 * The clock of a location's store (location.c) and of a mutex (below) is the
 * same vclock: a release copies the releaser's clock into it, an acquire
 * joins it into the acquirer's (loom's synchronize.rs).
 */
#include "model/part.h"

#include <string.h>

/* This file's part of the schedule's world, through its layer's (model/part.h). */
static inline clock_state *st(void) { return &model_now()->clock; }

void clock_reset(void)
{
    memset(st()->clock, 0, sizeof st()->clock);
    /* Epochs start at 1, so that 0 can mean "never". */
    for (int u = 0; u < THREADS; ++u)
        st()->clock[u].c[u] = 1;
    st()->nmutexes = 0;
}

const vclock *clock_of(int thread) { return &st()->clock[thread]; }
uint32_t clock_now(int thread) { return st()->clock[thread].c[thread]; }
void clock_tick(int thread) { ++st()->clock[thread].c[thread]; }

void clock_vjoin(vclock *into, const vclock *from)
{
    for (int u = 0; u < THREADS; ++u)
        if (from->c[u] > into->c[u])
            into->c[u] = from->c[u];
}

void clock_join(int thread, const vclock *from) { clock_vjoin(&st()->clock[thread], from); }

bool clock_hb(int u, uint32_t e, int thread)
{
    /* Program order (sequenced-before, 5.1.2.3p3) within one thread. */
    return u == thread || st()->clock[thread].c[u] >= e;
}

static vclock *mutex_clock_of(const void *m)
{
    for (int i = 0; i < st()->nmutexes; ++i)
        if (st()->mutexes[i].m == m)
            return &st()->mutexes[i].clock;
    if (st()->nmutexes == 16)
        explore_fail("explorer", "more than 16 mutexes in one schedule");
    st()->mutexes[st()->nmutexes] = (mutex_clock){.m = m};
    return &st()->mutexes[st()->nmutexes++].clock;
}

/* 5.1.2.4p6-7 (C11 mutexes; POSIX says the same of pthread_mutex_t in
 * XBD 4.12): an unlock synchronizes with the next lock of the same mutex. */
void clock_mutex_unlock(int thread, const void *m)
{
    clock_vjoin(mutex_clock_of(m), &st()->clock[thread]);
    clock_tick(thread);
}

void clock_mutex_lock(int thread, const void *m)
{
    clock_vjoin(&st()->clock[thread], mutex_clock_of(m));
    clock_tick(thread);
}

/* 7.26.5.1p2 (thrd_create; pthread_create alike): the creation
 * synchronizes with the start of the new thread. */
void clock_thread_start(int thread, int creator)
{
    clock_vjoin(&st()->clock[thread], &st()->clock[creator]);
    clock_tick(creator);
}

/* 7.26.5.6p2 (thrd_join): the end of the thread synchronizes with the
 * return of the join. */
void clock_thread_join(int joiner, int thread)
{
    clock_vjoin(&st()->clock[joiner], &st()->clock[thread]);
    clock_tick(joiner);
}
