/*
 * count.h -- the operations a workload is made of, counted (the API).
 *
 * The tour's counting build compiles each step's sources and the benchmark
 * a second time with count_hook.h force-included (-include), which makes
 * every atomic operation and mutex call of theirs bump one of these
 * counters; common/ (the allocator, the coroutine frames) is not hooked:
 * its allocations are counted by the allocator itself. meter.c reads the
 * counters around its timed region and reports them per op, and the tour
 * prices them with what bench_floor measured (floor.c).
 *
 * The counters are global and atomic: a workload may run on two threads
 * (task_race), and the counting build is never timed.
 */
#ifndef LOCKSTEP_BENCH_COUNT_H
#define LOCKSTEP_BENCH_COUNT_H

#include <pthread.h>
#include <stdint.h>

typedef enum lockstep_count_kind {
    LOCKSTEP_COUNT_EXCHANGE,
    LOCKSTEP_COUNT_COMPARE_EXCHANGE, /* strong or weak, succeeded or not */
    LOCKSTEP_COUNT_FETCH_OP,         /* fetch_add, fetch_sub, fetch_or, ... */
    LOCKSTEP_COUNT_LOAD,
    LOCKSTEP_COUNT_STORE,
    LOCKSTEP_COUNT_MUTEX_LOCK, /* a lock: one lock/unlock pair */
    LOCKSTEP_COUNT_MUTEX_UNLOCK,
    LOCKSTEP_COUNT_COND, /* wait, signal or broadcast */
    LOCKSTEP_COUNT_KINDS
} lockstep_count_kind;

/* Bumps one counter. */
void lockstep_count(lockstep_count_kind kind);

/* Copies every counter into counts[LOCKSTEP_COUNT_KINDS]. */
void lockstep_count_read(uint64_t *counts);

/* The counted forms of the pthread calls (count.c calls the real ones). */
int lockstep_count_mutex_lock(pthread_mutex_t *m);
int lockstep_count_mutex_unlock(pthread_mutex_t *m);
int lockstep_count_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int lockstep_count_cond_signal(pthread_cond_t *c);
int lockstep_count_cond_broadcast(pthread_cond_t *c);

#endif /* LOCKSTEP_BENCH_COUNT_H */
