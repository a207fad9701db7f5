/*
 * What the files of the simple_task suite share: the includes, the setup
 * most cases start from, and the helpers that build and measure chains of
 * plus_one tasks (tests/unit/test_task.c runs the cases of every file as one
 * suite, one ctest test per case).
 */
#ifndef LOCKSTEP_TASK_CASES_H
#define LOCKSTEP_TASK_CASES_H

#include "alloc_delta.h"
#include "check_main.h"
#include "timing.h"
#include "task_bodies.h"

#include "lockstep/alloc.h"
#include "lockstep/executor.h"
#include "lockstep/task.h"
#include "lockstep/trigger.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

/* Makes a driver (task_bodies.h) that owns `task`; it runs when resumed. */
static inline driver_frame *driver_new(simple_task task)
{
    driver_frame *f = driver_create(task);
    ck_assert_ptr_nonnull(f);
    return f;
}

/* Makes a driver that owns `task` and runs it to its await's first
 * suspension (or to its end); `resumes`, if not NULL, counts its runs past
 * the await. */
static inline driver_frame *driver_start(simple_task task, int *resumes)
{
    driver_frame *f = driver_new(task);
    f->resumes = resumes;
    lockstep_coro_resume(&f->coro);
    return f;
}

/* ---- the setup most cases start from --------------------------------------
 * A trigger and a task that awaits it, made once the allocation counts were
 * read, so that a case can say what its frames cost (allocs_since). Steps
 * 01-07 run the body to the trigger at once; step 08, when it is awaited. */
typedef struct triggered_fixture {
    lockstep_trigger trig;
    simple_task task;
    lockstep_alloc_counts before;
} triggered_fixture;

static inline void triggered_setup(triggered_fixture *fx, intptr_t value)
{
    lockstep_trigger_init(&fx->trig);
    fx->before = lockstep_alloc_totals();
    fx->task = (simple_task){0};
    ck_assert_int_eq(triggered_task(&fx->task, &fx->trig, task_value(value)), 0);
}

/* Every frame made since `before` was freed, once: `frames` allocations and
 * as many frees. `what` says whose frames, and what a miss would mean. */
static inline void assert_frames_freed(lockstep_alloc_counts before, unsigned long long frames, const char *what)
{
    alloc_delta n = allocs_since(before);
    ck_assert_msg(n.allocs == frames && n.frees == frames,
                  "expected %s: %llu allocation(s) and as many frees; got %llu allocation(s) and %llu free(s)", what,
                  frames, n.allocs, n.frees);
}

/* ---- chains of plus_one (task_bodies.h) ------------------------------------ */

/* Wraps *t in n plus_one tasks, each awaiting the one before: *t becomes the
 * outermost, which owns the rest. */
static inline void plus_one_wrap(simple_task *t, int n)
{
    for (int i = 0; i < n; ++i) {
        simple_task outer = {0};
        int err = plus_one(&outer, *t); /* before step 08 it awaits *t: suspends at once */
        lockstep_assert_in_loop(err == 0, "link %d of %d: plus_one returned %d", i + 1, n, err);
        *t = outer;
    }
}

/* The links that continued past their await, and the stack they ran at. */
static uintptr_t g_lowest_sp, g_highest_sp;
static size_t g_chain_resumes;

/* plus_one_on_resume: each link's resumption, and its depth. */
static inline void record_stack_depth(void)
{
    ++g_chain_resumes;
    /* the real frame: under ASan a local's address may be on its fake stack */
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    g_lowest_sp = sp < g_lowest_sp ? sp : g_lowest_sp;
    g_highest_sp = sp > g_highest_sp ? sp : g_highest_sp;
}

/* From now on each plus_one that continues is counted, with its depth. */
static inline void chain_record_start(void)
{
    g_lowest_sp = UINTPTR_MAX;
    g_highest_sp = 0;
    g_chain_resumes = 0;
    plus_one_on_resume = record_stack_depth;
}

static inline void chain_record_stop(void)
{
    plus_one_on_resume = NULL;
}

/* The step 08 cases (task/lazy.c), after test_task.c's own; ends with {0}. */
extern const lockstep_case task_lazy_cases[];

#endif
