/*
 * An await racing the completion of the task it awaits, on two threads: the
 * loop the unit case completion_races_await (tests/unit/test_task.c) and the
 * stress case await_races_completion (tests/stress/stress_task.c) share.
 *
 * Each iteration makes a task suspended on the firer's trigger (timing.h)
 * and a driver that awaits it (task_bodies.h), and runs the driver here
 * while the firer fires; the caller checks the driver, then hands it back
 * to be counted and destroyed:
 *
 *     await_race r;
 *     await_race_start(&r, iterations, seconds);
 *     for (unsigned i = 1; i <= r.firer.iterations; ++i) {
 *         driver_frame *d = await_race_round(&r, i);
 *         ... check d ...
 *         if (await_race_next(&r, i, d))
 *             break;
 *     }
 *     await_race_finish(&r, "awaits", LOCKSTEP_STEP_README);
 */
#ifndef LOCKSTEP_AWAIT_RACE_H
#define LOCKSTEP_AWAIT_RACE_H

#include "check_main.h"
#include "task_bodies.h"
#include "timing.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct await_race {
    race_firer firer;
    race_steer steer;
    race_budget budget;
    unsigned paths[4]; /* iterations by await path (enum await_path) */
    unsigned ran;      /* iterations run so far */
} await_race;

/* Starts the firer for `iterations` and a time budget of `seconds`. */
static inline void await_race_start(await_race *r, unsigned iterations, double seconds)
{
    ck_assert_int_eq(race_firer_start(&r->firer, iterations), 0);
    r->steer = (race_steer){0};
    r->budget = race_budget_start(seconds);
    for (int p = 0; p < 4; ++p)
        r->paths[p] = 0;
    r->ran = 0;
}

/* Iteration i's task: suspended on the firer's trigger, it completes with i
 * when the firer fires. */
static inline simple_task firer_task(race_firer *f, unsigned i)
{
    simple_task t = {0};
    int err = triggered_task(&t, &f->trig, task_value((intptr_t)i));
    lockstep_assert_in_loop(err == 0, "iteration %u: triggered_task returned %d", i, err);
    return t;
}

/* Iteration i: the driver, its await raced against the firing, once the
 * firer is done with the iteration (every counter can be read). */
static inline driver_frame *await_race_round(await_race *r, unsigned i)
{
    driver_frame *d = driver_create(firer_task(&r->firer, i));
    lockstep_assert_in_loop(d != NULL, "iteration %u: the driver's frame could not be allocated", i);
    race_firer_go(&r->firer, i, &r->steer);
    lockstep_coro_resume(&d->coro);
    race_wait_for(&r->firer.done, i);
    return d;
}

/* Counts iteration i by the path its driver's await took, steers the next
 * iteration and destroys the driver. True: the loop may stop (its budget is
 * spent and both outcomes occurred). */
static inline bool await_race_next(await_race *r, unsigned i, driver_frame *d)
{
    ++r->paths[d->path];
    race_steer_update(&r->steer, d->path == PATH_SUSPENDED);
    lockstep_coro_destroy(&d->coro);
    r->ran = i;
    return race_may_stop(&r->budget, r->paths[PATH_SUSPENDED] > 0 && r->paths[PATH_READY] + r->paths[PATH_LATE] > 0);
}

/* Stops the firer, prints "<label>: N ready, N late, N suspended" and checks
 * that both outcomes occurred (check_main.h), naming `readme`. */
static inline void await_race_finish(await_race *r, const char *label, const char *readme)
{
    race_firer_stop(&r->firer);
    printf("%s: %u ready, %u late, %u suspended\n", label, r->paths[PATH_READY], r->paths[PATH_LATE],
           r->paths[PATH_SUSPENDED]);
    lockstep_check_race_coverage("completion vs await", "completed first (ready or late path)",
                                 r->paths[PATH_READY] + r->paths[PATH_LATE], "await suspended first",
                                 r->paths[PATH_SUSPENDED], r->ran, readme);
}

#endif
