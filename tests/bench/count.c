/*
 * count.c -- the counters of count.h. Compiled without count_hook.h, so the
 * operations here are the real ones and are not counted themselves.
 */
#include "count.h"

#include <stdatomic.h>

static _Atomic uint64_t g_counts[LOCKSTEP_COUNT_KINDS];

void lockstep_count(lockstep_count_kind kind)
{
    atomic_fetch_add_explicit(&g_counts[kind], 1, memory_order_relaxed);
}

void lockstep_count_read(uint64_t *counts)
{
    for (int k = 0; k < LOCKSTEP_COUNT_KINDS; ++k)
        counts[k] = atomic_load_explicit(&g_counts[k], memory_order_relaxed);
}

int lockstep_count_mutex_lock(pthread_mutex_t *m)
{
    lockstep_count(LOCKSTEP_COUNT_MUTEX_LOCK);
    return pthread_mutex_lock(m);
}

int lockstep_count_mutex_unlock(pthread_mutex_t *m)
{
    lockstep_count(LOCKSTEP_COUNT_MUTEX_UNLOCK);
    return pthread_mutex_unlock(m);
}

int lockstep_count_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    lockstep_count(LOCKSTEP_COUNT_COND);
    return pthread_cond_wait(c, m);
}

int lockstep_count_cond_signal(pthread_cond_t *c)
{
    lockstep_count(LOCKSTEP_COUNT_COND);
    return pthread_cond_signal(c);
}

int lockstep_count_cond_broadcast(pthread_cond_t *c)
{
    lockstep_count(LOCKSTEP_COUNT_COND);
    return pthread_cond_broadcast(c);
}
