/*
 * Helpers for tests that race two threads: a hand-off flag, a jitter, and a
 * thread that fires a trigger once per iteration.
 *
 * A hand-off is a counter stored with release and awaited with acquire: what
 * the storing thread did before (create a task, arm a trigger) is visible to
 * the waiting thread after. The jitter is a varying busy loop so that
 * successive iterations meet the race at different points.
 */
#ifndef LOCKSTEP_RACE_H
#define LOCKSTEP_RACE_H

#include "lockstep/trigger.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static inline void race_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Publishes `value`: everything this thread did before is visible to a
 * thread that sees it in race_wait_for. */
static inline void race_publish(atomic_uint *flag, unsigned value)
{
    atomic_store_explicit(flag, value, memory_order_release);
}

/* Spins until *flag == value (yielding now and then: the machine may have
 * fewer cores than running threads). */
static inline void race_wait_for(atomic_uint *flag, unsigned value)
{
    for (unsigned spins = 0; atomic_load_explicit(flag, memory_order_acquire) != value; ++spins) {
        if (spins % 256 == 255)
            sched_yield();
        else
            race_pause();
    }
}

/* Busy-waits about `n` pause instructions. */
static inline void race_jitter(unsigned n)
{
    for (volatile unsigned i = 0; i < n; ++i)
        race_pause();
}

/* ---- a firing thread ---------------------------------------------------
 * Iteration i (from 1): the test arms `trig` (a task suspends on it) and
 * publishes `go` = i; the firer jitters, fires, and publishes `done` = i.
 * Whatever the test does between its publish and its wait for `done` races
 * the completion of the task. */
/* ---- a firing thread ---------------------------------------------------
 * Iteration i (from 1): the test arms `trig` (a task suspends on it) and
 * publishes `go` = i; the firer jitters, fires, and publishes `done` = i.
 * Whatever the test does between its publish and its wait for `done` races
 * the completion of the task. */
typedef struct race_firer {
    lockstep_trigger trig;
    atomic_uint go;   /* iteration number: trigger armed, fire it */
    atomic_uint done; /* iteration number: fired */
    unsigned iterations;
    pthread_t thread;
} race_firer;

static inline void *race_firer_main(void *arg)
{
    race_firer *f = arg;
    for (unsigned i = 1; i <= f->iterations; ++i) {
        race_wait_for(&f->go, i);
        race_jitter((i * 13u) % 67u);
        lockstep_trigger_fire(&f->trig);
        race_publish(&f->done, i);
    }
    return NULL;
}

/* Starts the firer for `iterations` iterations. 0 or pthread_create's error. */
static inline int race_firer_start(race_firer *f, unsigned iterations)
{
    lockstep_trigger_init(&f->trig);
    atomic_init(&f->go, 0);
    atomic_init(&f->done, 0);
    f->iterations = iterations;
    return pthread_create(&f->thread, NULL, race_firer_main, f);
}

static inline void race_firer_join(race_firer *f)
{
    pthread_join(f->thread, NULL);
}

#endif
