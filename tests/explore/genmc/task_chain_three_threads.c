/*
 * scenario_task.c's chain_across_three_threads as a plain pthread program
 * for GenMC:
 *
 *     A() { co_await trigger; co_return 42; }          fired on T0
 *     B(a) { r = co_await a; co_return r + 1; }         started on T1
 *     driver(b) { result = co_await b; release(b); }   resumed on T2
 *
 * The step's own task.c, common's coro.c and tests/support's task_bodies.h
 * (triggered_task, the driver) are #included, so that GenMC checks the very
 * code the explorer does; run.py picks the step with -I. B's frame is made
 * before the threads start and handed to the driver then; T1 runs B's body
 * from its start, as in the scenario. The scenario's checks are assert()s:
 * nothing continues past a co_await before what it awaits has returned its
 * value, the driver gets 43 exactly once, and every frame is freed
 * (lockstep_genmc.h counts them; GenMC itself reports a use after free or
 * a double free).
 *
 * common/src is lockstep_genmc.h's (malloc, and a frame zeroed by its
 * fields).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "lockstep_genmc.h"

#include "task.c"
/* task_bodies.h includes common's executor.h, whose struct holds a
 * condition variable; GenMC's pthread.h has none (v0.11 comments them
 * out). Nothing here uses the executor: a stand-in type lets the header
 * compile. */
typedef struct { int unused; } pthread_cond_t;
#include "task_bodies.h"

/* The one frame lockstep_coro_new makes here: task_bodies.h's driver. */
static void genmc_zero_frame(lockstep_coro *h, size_t size)
{
    assert(size == sizeof(driver_frame));
    driver_frame *f = (driver_frame *)h;
    f->task.m_promise = NULL;
    f->result.error = 0;
    f->result.value = 0;
    f->path = PATH_NONE;
    f->finished = 0;
    f->resumed_when_done = 0;
    f->resumes = NULL;
    f->on_continue = NULL;
    f->ctx = NULL;
}

static _Thread_local int self = -1;

static lockstep_trigger trig;
static simple_task task_a;
static simple_promise *b_frame;
static driver_frame *driver;
static bool fired, a_returned, b_returned;
static bool b_suspended; /* B's await of A suspended, so A's completion (T0) resumes it */
static int b_thread;     /* the thread B continued on, whose completion of B resumes a suspended driver */

/* triggered_task_body with the scenario's check where it continues. */
static lockstep_coro *checked_a_resume(lockstep_coro *c)
{
    if (c->resume_point != 1)
        return triggered_task_body(c);
    triggered_task_frame *f = (triggered_task_frame *)c;
    assert(fired && "A continued before fire");
    simple_promise_return_value(&f->promise, f->result);
    a_returned = true;
    return simple_promise_final_suspend(&f->promise);
}

typedef struct link_b_frame {
    simple_promise promise;
    simple_task inner;
} link_b_frame;

/* plus_one, with the checks, as scenario_task.c's link_b_body. */
static lockstep_coro *link_b_body(lockstep_coro *c)
{
    link_b_frame *f = (link_b_frame *)c;
    lockstep_coro *next;
    switch (c->resume_point) {
    case 0:
        c->resume_point = 1;
        if (!simple_task_await_ready(&f->inner)) {
            b_suspended = true; /* written before the frame is published */
            if (task_await_suspend(&f->inner, c, &next))
                return next;
            b_suspended = false;
        }
        /* fall through */
    case 1: {
        assert(a_returned && "B continued before A's completion");
        assert((!b_suspended || self == 0) && "B resumed outside A's completion");
        b_thread = self;
        task_result r = simple_task_await_resume(&f->inner);
        simple_task_release(&f->inner);
        r.value += 1;
        simple_promise_return_value(&f->promise, r);
        b_returned = true;
        return simple_promise_final_suspend(&f->promise);
    }
    }
    return NULL;
}

static void driver_continues(driver_frame *f)
{
    assert(b_returned && "the driver continued before B's completion");
    assert((f->path != PATH_SUSPENDED || self == b_thread) && "the driver resumed outside B's completion");
}

static void *completer(void *arg)
{
    (void)arg;
    self = 0;
    fired = true;
    lockstep_trigger_fire(&trig);
    return (void *)(intptr_t)genmc_live;
}

static void *start_b(void *arg)
{
    (void)arg;
    self = 1;
    simple_task mine; /* the driver's copy owns B */
    simple_task_start(&mine, b_frame);
    return (void *)(intptr_t)genmc_live;
}

static void *await_b(void *arg)
{
    (void)arg;
    self = 2;
    lockstep_coro_resume(&driver->coro);
    return (void *)(intptr_t)genmc_live;
}

int main(void)
{
    lockstep_trigger_init(&trig);
    triggered_task(&task_a, &trig, task_value(42));
    task_a.m_promise->coro.resume = checked_a_resume;
    simple_promise_create(&b_frame, sizeof(link_b_frame), link_b_body);
    ((link_b_frame *)b_frame)->inner = task_a;
    driver = driver_create((simple_task){b_frame});
    driver->on_continue = driver_continues;

    void *(*fn[3])(void *) = {completer, start_b, await_b};
    pthread_t t[3];
    int live_total = 0;
    for (int i = 0; i < 3; ++i)
        pthread_create(&t[i], NULL, fn[i], NULL);
    for (int i = 0; i < 3; ++i) {
        void *l;
        pthread_join(t[i], &l);
        live_total += (int)(intptr_t)l;
    }
    assert(driver->finished == 1 && driver->resumed_when_done == 0 && "lost wake-up or resumed twice");
    assert(driver->result.error == 0 && driver->result.value == 43 && "wrong value");
    lockstep_coro_destroy(&driver->coro);
    assert(live_total + genmc_live == 0 && "a frame leaked");
    return 0;
}
