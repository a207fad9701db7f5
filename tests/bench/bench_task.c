/*
 * bench_task.c -- the simple_task workloads: task_ready, task_suspend,
 * task_abandon, task_race (bench.c says what each timed region holds).
 */
#include "bench.h"
#include "timing.h"
#include "task_bodies.h"

#include "lockstep/task.h"
#include "lockstep/trigger.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

lockstep_coro *driver_finish(lockstep_coro *self)
{
    self->resume_point = LOCKSTEP_CORO_DONE;
    return NULL;
}

/* The driver of task_ready and task_suspend loops
 *     sum += co_await ready_task();            (trig == NULL)
 *     sum += co_await triggered_task(trig, i); (otherwise)
 * In task_ready the task has completed before the await, which takes the
 * already-completed path. In task_suspend the harness fires the trigger; the
 * task completes and resumes the driver, which releases the task and creates
 * the next one. */
typedef struct await_driver {
    lockstep_coro coro;
    size_t i, n;
    long sum;
    lockstep_trigger *trig;
    simple_task task;
} await_driver;

static lockstep_coro *await_driver_resume(lockstep_coro *self)
{
    await_driver *f = (await_driver *)self;
    lockstep_coro *next;
    switch (self->resume_point) {
    case 0:
        for (f->i = 0; f->i < f->n; ++f->i) {
            int err = f->trig ? triggered_task(&f->task, f->trig, task_value((intptr_t)f->i))
                              : ready_task(&f->task, task_value(42));
            if (err)
                die("out of memory");
            self->resume_point = 1;
            if (!simple_task_await_ready(&f->task) && task_await_suspend(&f->task, self, &next))
                return next;
            /* fall through */
    case 1:
            f->sum += simple_task_await_resume(&f->task).value;
            simple_task_release(&f->task);
        }
    }
    return driver_finish(self);
}

static await_driver *await_driver_new(size_t n, lockstep_trigger *trig)
{
    await_driver *d = (await_driver *)lockstep_coro_new(sizeof *d, await_driver_resume, lockstep_coro_free);
    if (!d)
        die("out of memory");
    d->n = n;
    d->trig = trig;
    return d;
}

sample task_ready(size_t n)
{
    await_driver *d = await_driver_new(n, NULL);
    meter m;
    meter_start(&m);
    lockstep_coro_resume(&d->coro);
    sample s = meter_stop(&m, n);
    s.ok = lockstep_coro_done(&d->coro) && d->sum == 42L * (long)n;
    lockstep_coro_destroy(&d->coro);
    return s;
}

sample task_suspend(size_t n)
{
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    await_driver *d = await_driver_new(n, &trig);
    meter m;
    meter_start(&m);
    lockstep_coro_resume(&d->coro);
    for (size_t i = 0; i < n; ++i)
        lockstep_trigger_fire(&trig);
    sample s = meter_stop(&m, n);
    s.ok = lockstep_coro_done(&d->coro) && d->sum == (long)n * (long)(n - 1) / 2;
    lockstep_coro_destroy(&d->coro);
    return s;
}

/* task_abandon: the task is released while suspended; when the trigger fires
 * it completes, finds itself abandoned and frees its own frame. */
sample task_abandon(size_t n)
{
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    int64_t live0 = lockstep_alloc_live();
    meter m;
    meter_start(&m);
    for (size_t i = 0; i < n; ++i) {
        simple_task task;
        if (triggered_task(&task, &trig, task_value((intptr_t)i)) != 0)
            die("out of memory");
        simple_task_release(&task); /* released unawaited */
        lockstep_trigger_fire(&trig);
    }
    sample s = meter_stop(&m, n);
    int64_t leaked = lockstep_alloc_live() - live0;
    s.ok = leaked == 0;
    add_note(&s, "leaked frames %lld;", (long long)leaked);
    return s;
}

/* task_race: N tasks, each suspended on its own trigger (set up untimed).
 * Timed: thread A runs a driver that awaits them in order while thread B
 * fires the triggers in order. Whoever is second on a task does the work: if
 * B completes a task that A already awaits, B resumes the driver (the driver
 * moves to thread B); if B is ahead, A takes the completed path. */
static _Thread_local int t_role; /* 1 = A, 2 = B */

typedef struct race_driver {
    lockstep_coro coro;
    size_t i, n;
    simple_task *tasks;
    size_t ready, late, bad; /* await paths taken, wrong values */
    int end_thread;
} race_driver;

static lockstep_coro *race_driver_resume(lockstep_coro *self)
{
    race_driver *f = (race_driver *)self;
    lockstep_coro *next;
    switch (self->resume_point) {
    case 0:
        for (f->i = 0; f->i < f->n; ++f->i) {
            self->resume_point = 1;
            if (simple_task_await_ready(&f->tasks[f->i])) {
                ++f->ready;
            } else {
                if (task_await_suspend(&f->tasks[f->i], self, &next))
                    return next; /* B may own the driver from here on */
                ++f->late;
            }
            /* fall through */
    case 1:
            f->bad += simple_task_await_resume(&f->tasks[f->i]).value != (intptr_t)f->i;
            simple_task_release(&f->tasks[f->i]);
        }
    }
    f->end_thread = t_role;
    return driver_finish(self);
}

typedef struct race_run {
    race_driver *driver;
    lockstep_trigger *trig;
    size_t n;
    atomic_uint arrived, go;
} race_run;

static void race_wait_go(race_run *r)
{
    atomic_fetch_add_explicit(&r->arrived, 1, memory_order_relaxed);
    race_wait_for(&r->go, 1);
}

static void *race_thread_a(void *arg)
{
    race_run *r = arg;
    t_role = 1;
    race_wait_go(r);
    lockstep_coro_resume(&r->driver->coro);
    return NULL;
}

static void *race_thread_b(void *arg)
{
    race_run *r = arg;
    t_role = 2;
    race_wait_go(r);
    for (size_t i = 0; i < r->n; ++i)
        lockstep_trigger_fire(&r->trig[i]);
    return NULL;
}

sample task_race(size_t n)
{
    uint64_t s0 = now_ns();
    lockstep_trigger *trig = malloc(n * sizeof *trig);
    simple_task *tasks = malloc(n * sizeof *tasks);
    race_driver *d = (race_driver *)lockstep_coro_new(sizeof *d, race_driver_resume, lockstep_coro_free);
    if (!trig || !tasks || !d)
        die("out of memory");
    for (size_t i = 0; i < n; ++i) {
        lockstep_trigger_init(&trig[i]);
        if (triggered_task(&tasks[i], &trig[i], task_value((intptr_t)i)) != 0)
            die("out of memory");
    }
    d->n = n;
    d->tasks = tasks;
    uint64_t s1 = now_ns();

    race_run r = {.driver = d, .trig = trig, .n = n};
    atomic_init(&r.arrived, 0);
    atomic_init(&r.go, 0);
    pthread_t a, b;
    if (pthread_create(&a, NULL, race_thread_a, &r) != 0 || pthread_create(&b, NULL, race_thread_b, &r) != 0)
        die("cannot start threads");
    while (atomic_load_explicit(&r.arrived, memory_order_relaxed) < 2)
        sched_yield();
    meter m;
    meter_start(&m);
    race_publish(&r.go, 1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    sample s = meter_stop(&m, n);
    s.ok = lockstep_coro_done(&d->coro) && d->bad == 0;
    add_note(&s, "awaits: %zu ready, %zu late, %zu suspended; driver ended on %s; untimed setup %.1f ns/task;",
             d->ready, d->late, n - d->ready - d->late, d->end_thread == 1 ? "A" : "B",
             (double)(s1 - s0) / (double)n);
    lockstep_coro_destroy(&d->coro);
    free(tasks);
    free(trig);
    return s;
}
