/*
 * co_await a task from a coroutine, in the shape of whichever step it is
 * compiled against: the one place the tests, the explorer's scenarios and
 * the benchmark bridge the two.
 *
 *   steps 01-07  the articles' bool await_suspend: true, the awaiter is
 *                suspended (return NULL); false, it continues at once
 *   step 08 on   (LOCKSTEP_TASK_LAZY) await_suspend hands over: it returns
 *                the task's body, which the awaiter returns to the
 *                trampoline; the awaiter is always suspended
 *
 * Use it as the await of coro.h, returning `next` instead of NULL:
 *
 *     self->resume_point = 1;
 *     if (!simple_task_await_ready(&f->task) && task_await_suspend(&f->task, self, &next))
 *         return next;
 */
#ifndef LOCKSTEP_TASK_AWAIT_H
#define LOCKSTEP_TASK_AWAIT_H

#include "lockstep/task.h"

#include "lockstep/coro.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

/* Whether this step's task is lazy (starts when awaited). */
#ifdef LOCKSTEP_TASK_LAZY
#define TASK_IS_LAZY 1
#else
#define TASK_IS_LAZY 0
#endif

/* The suspend step of co_await task. Returns true if the awaiting coroutine
 * `self` must return *next from its resume function (it is suspended; *next
 * is the coroutine to run next, or NULL), false if it continues at once
 * (steps 01-07: the task completed meanwhile). */
static inline bool task_await_suspend(simple_task *task, lockstep_coro *self, lockstep_coro **next)
{
#if TASK_IS_LAZY
    *next = simple_task_await_suspend(task, self);
    return true;
#else
    *next = NULL;
    return simple_task_await_suspend(task, self);
#endif
}

/* ---- has a task that runs without an await completed? --------------------
 *
 * For a task that runs whether or not anyone awaits it (a sequenced task):
 * whether it has completed, without blocking. Steps 01-07 ask await_ready.
 * From step 08 await_ready says false (a lazy task has not run before its
 * await), so a probe coroutine awaits the task: if it has completed, the
 * task hands back to the probe at once. Never use it on a task whose body
 * waits for its await: the probe would start it. */

typedef struct task_probe {
    lockstep_coro coro;
    bool *continued; /* NULL once the caller has gone: the probe frees itself */
} task_probe;

static inline lockstep_coro *task_probe_resume(lockstep_coro *self)
{
    task_probe *pr = (task_probe *)self;
    if (pr->continued)
        *pr->continued = true;
    else
        lockstep_coro_free(self); /* resumed late: the caller has gone */
    return NULL;
}

/* True if `task` has completed: its result can be read with
 * simple_task_await_resume. False if not; from step 08 the task is then
 * awaited by a probe that frees itself when the task completes, and the
 * task must not be awaited again. Aborts if the probe cannot be allocated. */
static inline bool task_has_completed(simple_task *task)
{
#if TASK_IS_LAZY
    task_probe *pr = (task_probe *)lockstep_coro_new(sizeof *pr, task_probe_resume, lockstep_coro_free);
    if (!pr)
        abort();
    bool continued = false;
    pr->continued = &continued;
    lockstep_coro_resume(simple_task_await_suspend(task, &pr->coro));
    if (!continued) {
        pr->continued = NULL; /* the task resumes it later, on some thread */
        return false;
    }
    lockstep_coro_free(&pr->coro);
    return true;
#else
    return simple_task_await_ready(task);
#endif
}

#endif
