/*
 * Task bodies shared by the task tests, the stress tests and the benchmark:
 * the C equivalents of the C++ peer's
 *
 *     simple_task<int> ready_task() { co_return 42; }
 *     simple_task<int> triggered_task(trigger& t, int v) { co_await t; co_return v; }
 *
 * Compiled per step, against that step's task.h: the API is the same in
 * every step.
 */
#ifndef LOCKSTEP_TASK_BODIES_H
#define LOCKSTEP_TASK_BODIES_H

#include "lockstep/task.h"
#include "lockstep/trigger.h"

#include <stddef.h>

/* ---- ready_task: co_return result; ------------------------------------- */

typedef struct ready_task_frame {
    simple_promise promise;
    task_result result; /* parameter */
} ready_task_frame;

static inline lockstep_coro *ready_task_body(lockstep_coro *self)
{
    ready_task_frame *f = (ready_task_frame *)self;
    simple_promise_return_value(&f->promise, f->result);
    return simple_promise_final_suspend(&f->promise);
}

/* Creates a task that completes at once with `result`. 0 or ENOMEM. */
static inline int ready_task(simple_task *task, task_result result)
{
    simple_promise *p;
    int err = simple_promise_create(&p, sizeof(ready_task_frame), ready_task_body);
    if (err)
        return err;
    ((ready_task_frame *)p)->result = result;
    simple_task_start(task, p);
    return 0;
}

/* ---- triggered_task: co_await trig; co_return result; ------------------- */

typedef struct triggered_task_frame {
    simple_promise promise;
    lockstep_trigger *trig; /* parameter */
    task_result result;     /* parameter */
} triggered_task_frame;

static inline lockstep_coro *triggered_task_body(lockstep_coro *self)
{
    triggered_task_frame *f = (triggered_task_frame *)self;
    switch (self->resume_point) {
    case 0:
        self->resume_point = 1;
        if (!lockstep_trigger_await_ready(f->trig) && lockstep_trigger_await_suspend(f->trig, self))
            return NULL;
        /* fall through */
    case 1:
        simple_promise_return_value(&f->promise, f->result);
        return simple_promise_final_suspend(&f->promise);
    }
    return NULL; /* not reached: a finished task is never resumed */
}

/* Creates a task that suspends on `trig` and completes with `result` when it
 * fires. 0 or ENOMEM. */
static inline int triggered_task(simple_task *task, lockstep_trigger *trig, task_result result)
{
    simple_promise *p;
    int err = simple_promise_create(&p, sizeof(triggered_task_frame), triggered_task_body);
    if (err)
        return err;
    triggered_task_frame *f = (triggered_task_frame *)p;
    f->trig = trig;
    f->result = result;
    simple_task_start(task, p);
    return 0;
}

/* The value-only form of task_result, for brevity. */
static inline task_result task_value(intptr_t v)
{
    return (task_result){0, v};
}

#endif
