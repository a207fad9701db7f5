/*
 * timing.h -- the timing harness of the tests that race two threads on
 * purpose (a race test: both orders of two operations must occur, and each
 * must be right). Not the data-race check: that is ThreadSanitizer's and the
 * explorer's. It holds a hand-off flag, a jitter, a time budget, a thread
 * that fires a trigger once per iteration, and a steer that keeps both
 * outcomes of a race occurring whatever the load.
 *
 * A hand-off is a counter stored with release and awaited with acquire: what
 * the storing thread did before (create a task, arm a trigger) is visible to
 * the waiting thread after. The jitter is a varying busy loop so that
 * successive iterations meet the race at different points.
 *
 * A real race needs two CPUs: on one, the two threads take turns, and which
 * one "wins" is decided by the scheduler, not by the code under test.
 * race_cpus() tells how many CPUs this process may run on; the tests use it
 * to report a coverage check they could not make as skipped (check_main.h,
 * lockstep_check_coverage), and the waits below stop spinning there.
 */
#ifndef LOCKSTEP_TIMING_H
#define LOCKSTEP_TIMING_H

#include "lockstep/trigger.h"

#include <pthread.h>
#include <sched.h>
#include <limits.h>
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

/* How many CPUs this process may run on: its affinity mask where the system
 * has one (Linux: `taskset -c 0` makes it 1), else the CPUs online. Asked
 * once, then cached (timing.c). */
int race_cpus(void);

/* Publishes `value`: everything this thread did before is visible to a
 * thread that sees it in race_wait_for. */
static inline void race_publish(atomic_uint *flag, unsigned value)
{
    atomic_store_explicit(flag, value, memory_order_release);
}

/* One turn of a spin-wait: pause, and yield now and then (the machine may
 * have fewer cores than running threads). On one CPU spinning only delays
 * the thread we wait for, so it yields every turn. */
static inline void race_backoff(unsigned spins)
{
    if (race_cpus() < 2 || spins % 256 == 0)
        sched_yield();
    else
        race_pause();
}

/* Spins until *flag == value. */
static inline void race_wait_for(atomic_uint *flag, unsigned value)
{
    for (unsigned spins = 1; atomic_load_explicit(flag, memory_order_acquire) != value; ++spins)
        race_backoff(spins);
}

/* Spins until *flag == value without synchronizing with the thread that
 * stored it (relaxed): for a test whose point is that something else must
 * provide the happens-before. */
static inline void race_wait_relaxed(atomic_uint *flag, unsigned value)
{
    for (unsigned spins = 1; atomic_load_explicit(flag, memory_order_relaxed) != value; ++spins)
        race_backoff(spins);
}

/* Busy-waits about `n` pause instructions. */
static inline void race_jitter(unsigned n)
{
    for (volatile unsigned i = 0; i < n; ++i)
        race_pause();
}

/* ---- a time budget for race loops ----------------------------------------
 * On a loaded machine (a laptop's busy core, a CI runner) every hand-off
 * between two threads may wait for a scheduler time slice, and a loop that
 * takes a quarter of a second on an idle machine takes minutes. So a race
 * loop may stop before its last iteration once its budget is spent, but
 * only once its race has produced every outcome it checks for (or, for a
 * loop that is not a race or on one CPU, at once). LOCKSTEP_RACE_SECONDS overrides every
 * budget; 0 means none (run every iteration, as a soak test would). */
typedef struct race_budget {
    double deadline; /* race_seconds() at which the budget is spent; 0: none */
} race_budget;

/* A monotonic clock, in seconds (timing.c). */
double race_seconds(void);

/* Starts a budget of `seconds` (or LOCKSTEP_RACE_SECONDS, timing.c). */
race_budget race_budget_start(double seconds);

static inline bool race_budget_spent(const race_budget *b)
{
    return b->deadline > 0 && race_seconds() >= b->deadline;
}

/* May a race loop stop now? Once its budget is spent and it has seen every
 * outcome; on one CPU, where the outcomes cannot be forced, once its budget
 * is spent. */
static inline bool race_may_stop(const race_budget *b, bool every_outcome_seen)
{
    return race_budget_spent(b) && (every_outcome_seen || race_cpus() < 2);
}

/* ---- steering a race to its boundary ------------------------------------
 * Which side of a race wins depends on the machine and its load: a fixed
 * delay that splits the outcomes on an idle machine may give only one of
 * them on a loaded one, and on some machines one side always wins with no
 * delay at all. The steer delays whichever side keeps winning: `delay` > 0
 * makes the test thread pause that long before it acts, `delay` < 0 makes
 * the other side (the firer, the waiters) pause -delay. After every
 * iteration it moves one notch toward the side that came second: the delay
 * doubles while one side keeps winning and halves back once it loses, so it
 * settles where the two sides meet and both outcomes keep occurring, each
 * decided by a real race.
 *
 * On one CPU there is no real race to steer (race_cpus() == 1): the delay
 * stays 0, so the tests do not spin for nothing. */
typedef struct race_steer {
    int delay; /* > 0: the test thread waits; < 0: the other side waits */
} race_steer;

#define RACE_STEER_MAX_DELAY (1 << 20)

/* Pause instructions before the test thread acts. */
static inline unsigned race_steer_test_delay(const race_steer *s)
{
    return s->delay > 0 ? (unsigned)s->delay : 0u;
}

/* Pause instructions before the other side acts. */
static inline unsigned race_steer_other_delay(const race_steer *s)
{
    return s->delay < 0 ? (unsigned)-s->delay : 0u;
}

static inline void race_steer_wait(const race_steer *s)
{
    race_jitter(race_steer_test_delay(s));
}

/* After an iteration: who came first? */
static inline void race_steer_update(race_steer *s, bool test_came_first)
{
    if (race_cpus() < 2)
        return;
    int d = s->delay;
    if (test_came_first) /* the test thread should come later: toward "test waits" */
        d = d >= 0 ? (d < RACE_STEER_MAX_DELAY ? 2 * d + 1 : d) : d / 2;
    else /* the other side should come later: toward "other side waits" */
        d = d <= 0 ? (d > -RACE_STEER_MAX_DELAY ? 2 * d - 1 : d) : d / 2;
    s->delay = d;
}

/* ---- a firing thread ---------------------------------------------------
 * Iteration i (from 1): the test arms `trig` (a task suspends on it), sets
 * the firer's delay from its steer, and publishes `go` = i; the firer wakes,
 * publishes `awake` = i, waits its delay plus a jitter, fires, and publishes
 * `done` = i. The test waits for `awake` before it acts, so both threads are
 * running when they meet (a firer still waking up would always lose), and
 * what it does between that and its wait for `done` races the completion of
 * the task. A test that ends early (its budget) stops the firer with
 * race_firer_stop: `go` = RACE_STOP. */
typedef struct race_firer {
    lockstep_trigger trig;
    atomic_uint go;    /* iteration number: trigger armed, fire it; RACE_STOP: end */
    atomic_uint awake; /* iteration number: the firer is about to fire */
    atomic_uint done;  /* iteration number: fired */
    unsigned delay;    /* pauses before firing this iteration (published by go) */
    unsigned iterations;
    pthread_t thread;
} race_firer;

#define RACE_STOP UINT_MAX

static inline void *race_firer_main(void *arg)
{
    race_firer *f = arg;
    for (unsigned i = 1; i <= f->iterations; ++i) {
        unsigned go;
        for (unsigned spins = 1; (go = atomic_load_explicit(&f->go, memory_order_acquire)) != i; ++spins) {
            if (go == RACE_STOP)
                return NULL;
            race_backoff(spins);
        }
        race_publish(&f->awake, i);
        race_jitter(f->delay + (i * 13u) % 67u);
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
    f->delay = 0;
    f->iterations = iterations;
    return pthread_create(&f->thread, NULL, race_firer_main, f);
}

/* The test's side of iteration i: hand the armed trigger over with the
 * firer's share of the steer, wait until the firer is running, then wait the
 * test's share. What the caller does next races the firing. */
static inline void race_firer_go(race_firer *f, unsigned i, const race_steer *steer)
{
    f->delay = race_steer_other_delay(steer);
    race_publish(&f->go, i);
    race_wait_for(&f->awake, i);
    race_steer_wait(steer);
}

/* Ends the firer after its current iteration (the test's loop ended early)
 * or its last; then joins it. */
static inline void race_firer_stop(race_firer *f)
{
    race_publish(&f->go, RACE_STOP);
    pthread_join(f->thread, NULL);
}

#endif
