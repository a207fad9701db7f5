/*
 * simple_task under load: completion, await and release raced from two
 * threads, a million iterations per case by default (LOCKSTEP_ITERATIONS
 * scales it: sanitizer builds run fewer).
 *
 * Each iteration makes one task suspended on a trigger, hands the trigger to
 * the firing thread and, while that thread completes the task, does one of:
 *
 *   await    a driver awaits the task; whoever resumes it (this thread on
 *            the ready or late path, the firer on the suspend path) releases
 *            the task, which frees the frame.
 *   release  the task is released unawaited; whichever of release and
 *            completion comes second frees the frame.
 *   abandon  (step 03 on) a driver awaits the task and is destroyed while
 *            suspended, on this thread, releasing the task; only then does
 *            the firer complete it, on its thread. The completion must free
 *            the frame and must not resume the driver. Destroying a suspended
 *            coroutine while another thread may be resuming it is a race no
 *            design allows, so this mode does not race: what it tests is
 *            the hand-off of the frame between threads (and, under
 *            ThreadSanitizer, the orders of abandon and final_suspend).
 *
 * After every iteration: exactly one frame allocated and one freed (no leak,
 * no double free), the driver finished exactly once (or was never resumed),
 * with the right value. Over the run, both outcomes of each race occurred; a
 * steer (race.h) keeps the test thread's delay where the threads meet, so
 * they do on an idle machine and on a loaded one.
 */
#include "check_main.h"
#include "race.h"
#include "task_bodies.h"

#include "lockstep/alloc.h"
#include "lockstep/task.h"

#include <stdint.h>
#include <stdio.h>

#define DEFAULT_ITERATIONS 1000000u

static unsigned iterations(void)
{
    size_t n = lockstep_iterations(DEFAULT_ITERATIONS);
    return n > UINT32_MAX / 2 ? UINT32_MAX / 2 : (unsigned)n;
}

/* The firer must be done with iteration i before its outcome is checked;
 * then this thread reads every counter without racing anyone. */
static void assert_one_frame_freed(const lockstep_alloc_counts *before, unsigned i, int extra_frames)
{
    lockstep_alloc_counts after = lockstep_alloc_totals();
    ck_assert_msg(after.allocs - before->allocs == (uint64_t)(1 + extra_frames) &&
                      after.frees - before->frees == (uint64_t)(1 + extra_frames),
                  "iteration %u: %llu allocations, %llu frees (want %d each)", i,
                  (unsigned long long)(after.allocs - before->allocs),
                  (unsigned long long)(after.frees - before->frees), 1 + extra_frames);
}

START_TEST(await_races_completion)
{
    race_firer firer;
    ck_assert_int_eq(race_firer_start(&firer, iterations()), 0);
    unsigned paths[4] = {0, 0, 0, 0};
    race_steer steer = {0};
    for (unsigned i = 1; i <= firer.iterations; ++i) {
        lockstep_alloc_counts before = lockstep_alloc_totals();
        simple_task t = {0};
        ck_assert_int_eq(triggered_task(&t, &firer.trig, task_value((intptr_t)i)), 0);
        driver_frame *d = driver_create(t);
        ck_assert_ptr_nonnull(d);
        race_firer_go(&firer, i);
        race_steer_wait(&steer);
        lockstep_coro_resume(&d->coro);
        race_wait_for(&firer.done, i);

        ck_assert_msg(d->finished == 1 && d->resumed_when_done == 0, "iteration %u: driver finished %d times, "
                      "resumed %d times after its end", i, d->finished, d->resumed_when_done);
        ck_assert_int_eq(d->result.value, (intptr_t)i);
        ++paths[d->path];
        race_steer_update(&steer, d->path == PATH_SUSPENDED);
        lockstep_coro_destroy(&d->coro);
        assert_one_frame_freed(&before, i, 1); /* the task's frame and the driver's */
    }
    race_firer_join(&firer);
    printf("await: %u ready, %u late, %u suspended\n", paths[PATH_READY], paths[PATH_LATE], paths[PATH_SUSPENDED]);
    ck_assert_msg(paths[PATH_READY] + paths[PATH_LATE] > 0, "the task never completed first");
    ck_assert_msg(paths[PATH_SUSPENDED] > 0, "the await never suspended first");
}
END_TEST

START_TEST(release_races_completion)
{
    race_firer firer;
    ck_assert_int_eq(race_firer_start(&firer, iterations()), 0);
    unsigned freed_by_release = 0, freed_by_completion = 0;
    race_steer steer = {0};
    for (unsigned i = 1; i <= firer.iterations; ++i) {
        lockstep_alloc_counts before = lockstep_alloc_totals();
        simple_task t = {0};
        ck_assert_int_eq(triggered_task(&t, &firer.trig, task_value((intptr_t)i)), 0);
        race_firer_go(&firer, i);
        race_steer_wait(&steer);
        uint64_t my_frees = lockstep_alloc_thread().frees;
        simple_task_release(&t); /* frees the frame only if the completion came first */
        bool freed_here = lockstep_alloc_thread().frees != my_frees;
        race_wait_for(&firer.done, i);

        freed_by_release += freed_here;
        freed_by_completion += !freed_here;
        race_steer_update(&steer, !freed_here); /* the release came first */
        assert_one_frame_freed(&before, i, 0);
    }
    race_firer_join(&firer);
    printf("release: frame freed %u times by the release, %u times by the completion\n", freed_by_release,
           freed_by_completion);
    ck_assert_msg(freed_by_release > 0, "the completion never came first");
    ck_assert_msg(freed_by_completion > 0, "the release never came first");
}
END_TEST

START_TEST(awaiter_released_then_completed)
{
    race_firer firer;
    ck_assert_int_eq(race_firer_start(&firer, iterations()), 0);
    for (unsigned i = 1; i <= firer.iterations; ++i) {
        lockstep_alloc_counts before = lockstep_alloc_totals();
        simple_task t = {0};
        ck_assert_int_eq(triggered_task(&t, &firer.trig, task_value((intptr_t)i)), 0);
        int resumes = 0;
        driver_frame *d = driver_create(t);
        ck_assert_ptr_nonnull(d);
        d->resumes = &resumes;
        lockstep_coro_resume(&d->coro); /* suspends: the trigger has not fired */
        ck_assert_int_eq(d->path, PATH_SUSPENDED);
        lockstep_coro_destroy(&d->coro); /* releases the task: abandon() */
        race_firer_go(&firer, i);
        race_wait_for(&firer.done, i); /* the completion frees the task's frame */

        ck_assert_msg(resumes == 0, "iteration %u: the destroyed driver was resumed", i);
        assert_one_frame_freed(&before, i, 1);
    }
    race_firer_join(&firer);
}
END_TEST

int main(int argc, char **argv)
{
    const lockstep_case cases[] = { /* automatic: START_TEST names are pointer variables */
        {await_races_completion, 1, NULL, 0},
        {release_races_completion, 1, NULL, 0},
        {awaiter_released_then_completed, 3,
         "before abandon() (step 03) the completing task resumes its destroyed awaiter (use after free)", 0},
    };
    return lockstep_check_main("stress.task", LOCKSTEP_STEP, cases, sizeof cases / sizeof cases[0], argc, argv);
}
