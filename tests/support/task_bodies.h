/*
 * Task bodies shared by the task tests, the stress tests and the benchmark:
 * the C equivalents of tests/bench/cxx/bench.cpp's
 *
 *     simple_task<int> ready_task() { co_return 42; }
 *     simple_task<int> triggered_task(trigger& t, int v) { co_await t; co_return v; }
 *
 * Compiled per step, against that step's task.h: the API is the same in
 * every step but for await_suspend's shape, which task_await.h bridges.
 */
#ifndef LOCKSTEP_TASK_BODIES_H
#define LOCKSTEP_TASK_BODIES_H

#include "task_await.h"

#include "lockstep/alloc.h"
#include "lockstep/executor.h"
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

/* ---- hop_task: co_await executor; co_return result; ------------------------
 * Completes on a worker of `ex`: the way to complete a task on another
 * thread that works whether the task starts when created or when awaited
 * (a trigger must be armed before another thread fires it). */

typedef struct hop_task_frame {
    simple_promise promise;
    lockstep_executor *ex;         /* parameter */
    task_result result;            /* parameter */
    lockstep_executor_awaiter hop; /* co_await ex */
} hop_task_frame;

static inline lockstep_coro *hop_task_body(lockstep_coro *self)
{
    hop_task_frame *f = (hop_task_frame *)self;
    switch (self->resume_point) {
    case 0:
        self->resume_point = 1;
        if (!lockstep_executor_await_ready(f->ex) && lockstep_executor_await_suspend(f->ex, &f->hop, self))
            return NULL;
        /* fall through */
    case 1:
        simple_promise_return_value(&f->promise, f->result);
        return simple_promise_final_suspend(&f->promise);
    }
    return NULL; /* not reached: a finished task is never resumed */
}

/* Creates a task that hops to `ex` and completes there with `result`. 0 or
 * ENOMEM. */
static inline int hop_task(simple_task *task, lockstep_executor *ex, task_result result)
{
    simple_promise *p;
    int err = simple_promise_create(&p, sizeof(hop_task_frame), hop_task_body);
    if (err)
        return err;
    hop_task_frame *f = (hop_task_frame *)p;
    f->ex = ex;
    f->result = result;
    simple_task_start(task, p);
    return 0;
}

/* ---- a driver: a coroutine that awaits one task ---------------------------
 *
 *     driver(task) { result = co_await task; release(task); }
 *
 * It records which way the await went. Its destroy function is what C++ runs
 * when a suspended coroutine is destroyed: the task it awaits is released.
 */
enum await_path { PATH_NONE, PATH_READY, PATH_SUSPENDED, PATH_LATE };

typedef struct driver_frame {
    lockstep_coro coro;
    simple_task task;     /* owned: released after the await, or by destroy */
    task_result result;
    enum await_path path;
    int finished;         /* times the code after the await ran: must be 1 */
    int resumed_when_done; /* resumes after the end: must stay 0 */
    int *resumes;         /* optional: counts resumptions, outlives the frame */
    /* optional: runs where the driver continues past its co_await, on every
     * path, before await_resume (the explorer checks there that the task's
     * body has returned); ctx is the caller's */
    void (*on_continue)(struct driver_frame *f);
    void *ctx;
} driver_frame;

static inline lockstep_coro *driver_resume(lockstep_coro *self)
{
    driver_frame *f = (driver_frame *)self;
    switch (self->resume_point) {
    case 0:
        self->resume_point = 1;
        if (simple_task_await_ready(&f->task)) {
            f->path = PATH_READY;
        } else {
            f->path = PATH_SUSPENDED; /* written before self is published */
            lockstep_coro *next;
            if (task_await_suspend(&f->task, self, &next))
                return next; /* step 08: the task's body, started here */
            f->path = PATH_LATE; /* completed between await_ready and await_suspend */
        }
        /* fall through */
    case 1:
        if (f->on_continue)
            f->on_continue(f);
        if (f->resumes)
            ++*f->resumes;
        f->result = simple_task_await_resume(&f->task);
        simple_task_release(&f->task);
        ++f->finished;
        self->resume_point = LOCKSTEP_CORO_DONE;
        return NULL;
    default:
        ++f->resumed_when_done;
        return NULL;
    }
}

static inline void driver_destroy(lockstep_coro *self)
{
    driver_frame *f = (driver_frame *)self;
    simple_task_release(&f->task); /* no-op if already released */
    lockstep_coro_free(self);
}

/* Makes a driver that owns `task`; it runs when resumed. NULL: ENOMEM
 * (the task is still the caller's). */
static inline driver_frame *driver_create(simple_task task)
{
    driver_frame *f = (driver_frame *)lockstep_coro_new(sizeof(driver_frame), driver_resume, driver_destroy);
    if (f)
        f->task = task;
    return f;
}

/* plus_one(inner) { r = co_await inner; co_return r + 1; }
 *
 * A chain of them, each awaiting the one before, completes in a row when the
 * innermost task does: each final_suspend hands its awaiter to the
 * trampoline. The unit test deep_await_chain measures the stack over
 * 100,000 links, the explorer's await_chain the nesting over four. */
typedef struct plus_one_frame {
    simple_promise promise;
    simple_task inner;
} plus_one_frame;

/* Optional: runs in each plus_one as it continues past its co_await (the
 * unit test counts the resumptions and records the stack depth there). */
static void (*plus_one_on_resume)(void);

static inline lockstep_coro *plus_one_body(lockstep_coro *self)
{
    plus_one_frame *f = (plus_one_frame *)self;
    lockstep_coro *next;
    switch (self->resume_point) {
    case 0:
        self->resume_point = 1;
        if (!simple_task_await_ready(&f->inner) && task_await_suspend(&f->inner, self, &next))
            return next;
        /* fall through */
    case 1: {
        if (plus_one_on_resume)
            plus_one_on_resume();
        task_result r = simple_task_await_resume(&f->inner);
        simple_task_release(&f->inner);
        r.value += 1;
        simple_promise_return_value(&f->promise, r);
        return simple_promise_final_suspend(&f->promise);
    }
    }
    return NULL; /* not reached: a finished task is never resumed */
}

/* Destroys a plus_one frame: the parameter `inner` is released with it (a
 * no-op once the body has released it). Step 08 calls it when the task is
 * released, started or not; earlier steps free a finished frame themselves
 * and never destroy one that holds its inner task. */
static inline void plus_one_destroy(lockstep_coro *self)
{
    plus_one_frame *f = (plus_one_frame *)self;
    simple_task_release(&f->inner);
    lockstep_free(self);
}

/* Starts plus_one(inner) into *task; it owns inner from now on. ENOMEM:
 * nothing was created (inner is still the caller's). */
static inline int plus_one(simple_task *task, simple_task inner)
{
    simple_promise *p;
    int err = simple_promise_create(&p, sizeof(plus_one_frame), plus_one_body);
    if (err)
        return err;
#if TASK_IS_LAZY
    p->coro.destroy = plus_one_destroy; /* released unstarted, it still owns inner */
#endif
    ((plus_one_frame *)p)->inner = inner;
    simple_task_start(task, p);
    return 0;
}

/* The value-only form of task_result, for brevity. */
static inline task_result task_value(intptr_t v)
{
    return (task_result){0, v};
}

#endif
