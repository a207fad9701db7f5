/*
 * scenario_event.c's set_vs_three_waiter_threads (and, with -DWAITERS=2,
 * set_vs_awaits_on_two_threads) as a plain pthread program for GenMC:
 *
 *     T0: set(event)      T1..Tn: one waiter each, `co_await event;`
 *
 * The step's own event.c and common's coro.c are #included, so that GenMC
 * checks the very code the explorer does; run.py picks the step with -I
 * (its src/ and include/). The scenario's checks are assert()s here:
 * a waiter continues past its co_await only once set() was called, one
 * resumed after suspending is resumed by set() on the setter's thread, and
 * each waiter finishes its await exactly once. The scenario's FIFO check
 * is left out: it asks which waiter's write happens before another's point
 * (explore_read_settled), which a C program cannot ask, and a check that
 * read an atomic flag instead would add reads, and executions.
 *
 * common/src is lockstep_genmc.h's (malloc, and a frame zeroed by its
 * fields).
 */
#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "lockstep_genmc.h"

#include "event.c"

#ifndef WAITERS
#define WAITERS 3
#endif

/* The thread's index: 0 the setter, 1..WAITERS the waiters' threads. */
static _Thread_local int self = -1;

/* What set() has done, for the waiters' checks, and what each waiter did:
 * plain, as in the scenario, so that they add no executions (a read of one
 * that happens-before does not order is a data race, which GenMC reports). */
static awaitable_event *ev;
static bool set_called;
static int set_thread = -1;
static int awaits[WAITERS];

typedef struct waiter_frame {
    lockstep_coro coro;
    awaitable_event_awaiter aw;
    int id;
    bool suspended; /* this await suspended, so set() resumed it */
} waiter_frame;

static waiter_frame *waiters[WAITERS];

static void genmc_zero_frame(lockstep_coro *h, size_t size)
{
    assert(size == sizeof(waiter_frame));
    waiter_frame *f = (waiter_frame *)h; /* the awaiter: await_ready writes it before anything reads it */
    f->id = 0;
    f->suspended = false;
}

static lockstep_coro *waiter_resume(lockstep_coro *self_coro)
{
    waiter_frame *f = (waiter_frame *)self_coro;
    switch (self_coro->resume_point) {
    case 0:
        self_coro->resume_point = 1;
        f->suspended = false;
        if (!awaitable_event_await_ready(ev, &f->aw)) {
            f->suspended = true; /* written before the frame is published */
            if (awaitable_event_await_suspend(ev, &f->aw, self_coro))
                return NULL; /* from here on, set() may resume it and the frame may be gone */
            f->suspended = false;
        }
        /* fall through */
    case 1:
        assert(set_called && "continued before set");
        assert((!f->suspended || set_thread == self) && "resumed outside set()");
        ++awaits[f->id];
        assert(awaitable_event_await_resume(&f->aw) == 0 && "wrong value");
        lockstep_coro_free(self_coro); /* its frame ends with it */
        return NULL;
    }
    return NULL;
}

static void waiter_destroy(lockstep_coro *c) { lockstep_coro_free(c); }

static void *setter(void *arg)
{
    (void)arg;
    self = 0;
    set_called = true;
    set_thread = self;
    awaitable_event_set(ev);
    set_thread = -1;
    return NULL;
}

static void *waiter_thread(void *arg)
{
    int i = (int)(intptr_t)arg;
    self = i + 1;
    lockstep_coro_resume(&waiters[i]->coro);
    return NULL;
}

int main(void)
{
    ev = lockstep_alloc(sizeof *ev);
    awaitable_event_init(ev);
    for (int i = 0; i < WAITERS; ++i) {
        waiters[i] = (waiter_frame *)lockstep_coro_new(sizeof(waiter_frame), waiter_resume, waiter_destroy);
        waiters[i]->id = i;
    }
    pthread_t t[WAITERS + 1];
    pthread_create(&t[0], NULL, setter, NULL);
    for (int i = 0; i < WAITERS; ++i)
        pthread_create(&t[i + 1], NULL, waiter_thread, (void *)(intptr_t)i);
    for (int i = 0; i <= WAITERS; ++i)
        pthread_join(t[i], NULL);
    for (int i = 0; i < WAITERS; ++i)
        assert(awaits[i] == 1 && "lost wake-up or resumed twice");
    awaitable_event_destroy(ev);
    lockstep_free(ev);
    return 0;
}
