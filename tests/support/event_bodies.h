/*
 * The waiter the event tests await with (tests/unit/test_event.c): a
 * coroutine that records what happened to it, how it got past the await
 * (ready or suspended), how often it ran on, in which order it was resumed
 * and what the await returned.
 */
#ifndef LOCKSTEP_EVENT_BODIES_H
#define LOCKSTEP_EVENT_BODIES_H

#include "check_main.h"

#include "lockstep/alloc.h"
#include "lockstep/coro.h"
#include "lockstep/event.h"
#include "lockstep/trigger.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- a waiter: loops { co_await ev; record; co_await park; } --------------
 * `rounds` awaits of the event; between two of them it parks on `park`, a
 * trigger the test fires to start the next await. */
typedef struct waiter_frame {
    lockstep_coro coro;
    awaitable_event *ev;
    awaitable_event_awaiter aw;
    lockstep_trigger *park;
    int rounds;
    int index;          /* its place in line, for the FIFO check */
    int *order;         /* optional: order[n] = index of the n-th waiter resumed */
    int *order_len;
    int passed;         /* awaits completed */
    int suspended;      /* of those, how many suspended first */
    int fast;           /* of those, how many saw the event set in await_ready */
    bool rearm;         /* after the first pass: reset the event, await again at once */
    int last_error;     /* what the last await returned */
    const int *payload; /* optional: written by the setter before set() */
    int seen;           /* *payload as read after the await */
} waiter_frame;

static inline lockstep_coro *waiter_resume(lockstep_coro *self)
{
    waiter_frame *f = (waiter_frame *)self;
    switch (self->resume_point) {
    case 0:
    again:
        self->resume_point = 1;
        if (awaitable_event_await_ready(f->ev, &f->aw)) {
            ++f->fast;
        } else {
            ++f->suspended; /* written before self is published */
            if (awaitable_event_await_suspend(f->ev, &f->aw, self))
                return NULL;
            --f->suspended; /* set meanwhile, or could not register */
        }
        /* fall through */
    case 1:
        f->last_error = awaitable_event_await_resume(&f->aw);
        if (f->payload)
            f->seen = *f->payload; /* synchronized by set()/await only */
        ++f->passed;
        if (f->order)
            f->order[(*f->order_len)++] = f->index;
        if (f->passed == f->rounds) {
            self->resume_point = LOCKSTEP_CORO_DONE;
            return NULL;
        }
        if (f->rearm) { /* still inside set(): reuse the awaiter (its node) at once */
            f->rearm = false;
            awaitable_event_reset(f->ev);
            goto again;
        }
        self->resume_point = 0; /* the next await starts when the park fires */
        lockstep_trigger_await_suspend(f->park, self);
        return NULL;
    default: /* maybe on another thread: Check's assertions belong to the test's thread */
        fprintf(stderr, "test_event: waiter %d resumed after its end\n", f->index);
        abort();
    }
}

static inline waiter_frame *waiter_new(awaitable_event *ev, int index, int rounds)
{
    waiter_frame *f = (waiter_frame *)lockstep_coro_new(sizeof(waiter_frame), waiter_resume, lockstep_coro_free);
    ck_assert_ptr_nonnull(f);
    f->ev = ev;
    f->index = index;
    f->rounds = rounds;
    return f;
}

/* Makes n waiters of one await each on ev, w[i] with index i, which log the
 * order they are resumed in (order[(*order_len)++] = index); none runs yet. */
static inline void waiters_new_logged(awaitable_event *ev, waiter_frame **w, int n, int *order, int *order_len)
{
    for (int i = 0; i < n; ++i) {
        w[i] = waiter_new(ev, i, 1);
        w[i]->order = order;
        w[i]->order_len = order_len;
    }
}

#endif
