/*
 * Helpers for tests that race two threads: a hand-off flag, a jitter, a
 * thread that fires a trigger once per iteration, and a steer that keeps
 * both outcomes of a race occurring whatever the load.
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
#include <stdbool.h>

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
 * publishes `go` = i; the firer wakes, publishes `awake` = i, jitters, fires,
 * and publishes `done` = i. The test waits for `awake` before it acts, so
 * both threads are running when they meet (a firer still waking up would
 * always lose), and what it does between that and its wait for `done` races
 * the completion of the task. */
typedef struct race_firer {
    lockstep_trigger trig;
    atomic_uint go;    /* iteration number: trigger armed, fire it */
    atomic_uint awake; /* iteration number: the firer is about to fire */
    atomic_uint done;  /* iteration number: fired */
    unsigned iterations;
    pthread_t thread;
} race_firer;

static inline void *race_firer_main(void *arg)
{
    race_firer *f = arg;
    for (unsigned i = 1; i <= f->iterations; ++i) {
        race_wait_for(&f->go, i);
        race_publish(&f->awake, i);
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
    atomic_init(&f->awake, 0);
    atomic_init(&f->done, 0);
    f->iterations = iterations;
    return pthread_create(&f->thread, NULL, race_firer_main, f);
}

/* The test's side of iteration i: hand the armed trigger over and wait until
 * the firer is running. */
static inline void race_firer_go(race_firer *f, unsigned i)
{
    race_publish(&f->go, i);
    race_wait_for(&f->awake, i);
}

static inline void race_firer_join(race_firer *f)
{
    pthread_join(f->thread, NULL);
}

/* ---- steering a race to its boundary ------------------------------------
 * Which side of a race wins depends on the machine and its load: a fixed
 * delay that splits the outcomes on an idle machine may give only one of
 * them on a loaded one. The steer adapts the test thread's delay after every
 * iteration: after the test thread came first it waits longer next time,
 * after it came second it waits less. The delay settles where the two sides
 * meet, so both outcomes keep occurring, each decided by a real race. */
typedef struct race_steer {
    unsigned delay; /* pause instructions before the test thread acts */
} race_steer;

#define RACE_STEER_MAX_DELAY (1u << 20)

static inline void race_steer_wait(const race_steer *s)
{
    race_jitter(s->delay);
}

static inline void race_steer_update(race_steer *s, bool test_came_first)
{
    if (test_came_first)
        s->delay = s->delay < RACE_STEER_MAX_DELAY ? 2 * s->delay + 1 : s->delay;
    else
        s->delay /= 2;
}

#endif
