/*
 * simple_task under load: completion, await and release raced from two
 * threads, a million iterations per case by default (LOCKSTEP_ITERATIONS
 * scales it: sanitizer builds run fewer). On a loaded machine a case may
 * stop early once its time budget is spent and its race has produced both
 * outcomes (timing.h); it prints how many iterations it ran.
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
 * steer (timing.h) delays whichever thread keeps winning, so they do on an
 * idle machine and on a loaded one. On one CPU no real race can happen: the
 * outcomes that occurred are checked, and the coverage check is reported
 * skipped with that reason.
 */
#include "alloc_delta.h"
#include "await_race.h"
#include "check_main.h"
#include "timing.h"
#include "task_bodies.h"

#include "lockstep/alloc.h"
#include "lockstep/task.h"

#include <stdint.h>
#include <stdio.h>

#define DEFAULT_ITERATIONS 1000000u
#define BUDGET_SECONDS 6.0 /* timing.h: may stop early under load, once both outcomes occurred */

static unsigned iterations(void)
{
    size_t n = lockstep_iterations(DEFAULT_ITERATIONS);
    return n > UINT32_MAX / 2 ? UINT32_MAX / 2 : (unsigned)n;
}

/* The firer must be done with iteration i before its outcome is checked;
 * then this thread reads every counter without racing anyone. */
static void assert_one_frame_freed(const lockstep_alloc_counts *before, unsigned i, int extra_frames)
{
    alloc_delta n = allocs_since(*before);
    lockstep_assert_in_loop(n.allocs == (uint64_t)(1 + extra_frames) && n.frees == (uint64_t)(1 + extra_frames),
                            "iteration %u: expected %d allocation(s) and as many frees, got %llu allocations and "
                            "%llu frees (a leak or a double free: see " LOCKSTEP_STEP_README ", \"The idea\")",
                            i, 1 + extra_frames, n.allocs, n.frees);
}

START_TEST(await_races_completion)
{
    await_race r;
    await_race_start(&r, iterations(), BUDGET_SECONDS);
    for (unsigned i = 1; i <= r.firer.iterations; ++i) {
        lockstep_alloc_counts before = lockstep_alloc_totals();
        driver_frame *d = await_race_round(&r, i);
        lockstep_assert_in_loop(d->finished == 1 && d->resumed_when_done == 0,
                                "iteration %u: expected the driver to finish once; it finished %d times and was "
                                "resumed %d times after its end (await path %d: 1 ready, 2 suspended, 3 late; see "
                                LOCKSTEP_STEP_README ", \"The idea\")",
                                i, d->finished, d->resumed_when_done, (int)d->path);
        lockstep_assert_in_loop(d->result.value == (intptr_t)i, "iteration %u: the await returned %ld, expected %u",
                                i, (long)d->result.value, i);
        bool stop = await_race_next(&r, i, d);
        assert_one_frame_freed(&before, i, 1); /* the task's frame and the driver's */
        if (stop)
            break;
    }
    await_race_finish(&r, "await", LOCKSTEP_STEP_README);
}
END_TEST

START_TEST(release_races_completion)
{
    race_firer firer;
    ck_assert_int_eq(race_firer_start(&firer, iterations()), 0);
    unsigned freed_by_release = 0, freed_by_completion = 0;
    race_steer steer = {0};
    race_budget budget = race_budget_start(BUDGET_SECONDS);
    unsigned ran = 0;
    for (unsigned i = 1; i <= firer.iterations; ++i) {
        lockstep_alloc_counts before = lockstep_alloc_totals();
        simple_task t = firer_task(&firer, i);
        race_firer_go(&firer, i, &steer);
        uint64_t my_frees = lockstep_alloc_thread().frees;
        simple_task_release(&t); /* frees the frame only if the completion came first */
        bool freed_here = lockstep_alloc_thread().frees != my_frees;
        race_wait_for(&firer.done, i);

        freed_by_release += freed_here;
        freed_by_completion += !freed_here;
        race_steer_update(&steer, !freed_here); /* the release came first */
        assert_one_frame_freed(&before, i, 0);
        ran = i;
        if (race_may_stop(&budget, freed_by_release > 0 && freed_by_completion > 0))
            break;
    }
    race_firer_stop(&firer);
    lockstep_check_race_coverage("completion vs release", "completion first (the release freed the frame)",
                                 freed_by_release, "release first (the completion freed the frame)",
                                 freed_by_completion, ran, LOCKSTEP_STEP_README);
}
END_TEST

START_TEST(awaiter_released_then_completed)
{
    race_firer firer;
    ck_assert_int_eq(race_firer_start(&firer, iterations()), 0);
    const race_steer no_steer = {0}; /* not a race: the firer starts after the release */
    race_budget budget = race_budget_start(BUDGET_SECONDS);
    unsigned ran = 0;
    for (unsigned i = 1; i <= firer.iterations; ++i) {
        lockstep_alloc_counts before = lockstep_alloc_totals();
        simple_task t = firer_task(&firer, i);
        int resumes = 0;
        driver_frame *d = driver_create(t);
        lockstep_assert_in_loop(d != NULL, "iteration %u: the driver's frame could not be allocated", i);
        d->resumes = &resumes;
        lockstep_coro_resume(&d->coro); /* suspends: the trigger has not fired */
        lockstep_assert_in_loop(d->path == PATH_SUSPENDED,
                                "iteration %u: expected the driver's await to suspend (path %d), it took path %d", i,
                                (int)PATH_SUSPENDED, (int)d->path);
        lockstep_coro_destroy(&d->coro); /* releases the task: abandon() */
        race_firer_go(&firer, i, &no_steer);
        race_wait_for(&firer.done, i); /* the completion frees the task's frame */

        lockstep_assert_in_loop(resumes == 0,
                                "iteration %u: expected the completion not to resume the destroyed driver; it "
                                "resumed it %d time(s) (see " LOCKSTEP_STEP_README ", \"Errata this step fixes\")",
                                i, resumes);
        assert_one_frame_freed(&before, i, 1);
        ran = i;
        if (race_budget_spent(&budget))
            break;
    }
    race_firer_stop(&firer);
    printf("abandon: %u awaiters destroyed while suspended, each task completed on the other thread\n", ran);
}
END_TEST

int main(int argc, char **argv)
{
    static const lockstep_case cases[] = {
        {&await_races_completion, 1,
         "a lazy task (step 08) cannot complete before its await: the awaiter is suspended before the body starts", 7,
         "await racing completion, a million times: one frame allocated and freed each time, the driver resumed "
         "once; both outcomes occur",
         "steps/02-atomic-handle/README.md, \"The idea\""},
        {&release_races_completion, 1, "a lazy task (step 08) released unawaited never runs, so nothing completes it", 7,
         "release racing completion, a million times: whichever comes second frees the frame, once; both occur",
         "steps/03-no-refcount/README.md, \"The idea\" (steps 01-02: the reference count)"},
        {&awaiter_released_then_completed, 3,
         "before abandon() (step 03) the completing task resumes its destroyed awaiter (use after free); a lazy "
         "task (step 08) is released before its await or after it, never while its awaiter waits on its body", 7,
         "an awaiter destroyed while suspended, its task completed on the other thread: the frame is freed, the "
         "awaiter never resumed",
         "steps/03-no-refcount/README.md, \"Errata this step fixes\" (erratum 1)"},
    };
    return lockstep_check_main("stress.task", LOCKSTEP_STEP, cases, sizeof cases / sizeof cases[0], argc, argv);
}
