/*
 * bench_event.c -- the awaitable_event workload: event_fanout/K (steps
 * that have the event; bench.c says what its timed region holds).
 */
#include "bench.h"
#if LOCKSTEP_HAS_EVENT
#include "lockstep/event.h"

#include <stdlib.h>
#include <string.h>
#endif

#if LOCKSTEP_HAS_EVENT

/* K waiter coroutines (frames allocated before timing) loop: await the
 * event, check FIFO order, count, park. A round = reset; resume each waiter
 * (it registers); set() resumes them all. ns/op = per waiter per round. */
typedef struct fanout_state {
    size_t counter, next_idx, order_errors, await_errors;
} fanout_state;

typedef struct fanout_waiter {
    lockstep_coro coro;
    awaitable_event *ev;
    fanout_state *st;
    size_t idx;
    awaitable_event_awaiter aw;
} fanout_waiter;

static lockstep_coro *fanout_waiter_resume(lockstep_coro *self)
{
    fanout_waiter *f = (fanout_waiter *)self;
    for (;;) {
        switch (self->resume_point) {
        case 0:
            self->resume_point = 1;
            if (!awaitable_event_await_ready(f->ev, &f->aw) && awaitable_event_await_suspend(f->ev, &f->aw, self))
                return NULL;
            /* fall through */
        case 1:
            f->st->await_errors += awaitable_event_await_resume(&f->aw) != 0;
            f->st->order_errors += f->st->next_idx != f->idx;
            f->st->next_idx = f->idx + 1;
            ++f->st->counter;
            self->resume_point = 0; /* park until the next round */
            return NULL;
        }
    }
}

sample event_fanout(size_t k, size_t n)
{
    size_t rounds = n / k > 0 ? n / k : 1;
    awaitable_event ev;
    if (awaitable_event_init(&ev) != 0)
        die("awaitable_event_init failed");
    fanout_state st = {0, 0, 0, 0};
    fanout_waiter **waiters = malloc(k * sizeof *waiters);
    if (!waiters)
        die("out of memory");
    for (size_t i = 0; i < k; ++i) {
        waiters[i] = (fanout_waiter *)lockstep_coro_new(sizeof(fanout_waiter), fanout_waiter_resume, lockstep_coro_free);
        if (!waiters[i])
            die("out of memory");
        waiters[i]->ev = &ev;
        waiters[i]->st = &st;
        waiters[i]->idx = i;
    }

    meter m;
    meter_start(&m);
    for (size_t r = 0; r < rounds; ++r) {
        awaitable_event_reset(&ev);
        for (size_t i = 0; i < k; ++i)
            lockstep_coro_resume(&waiters[i]->coro);
        st.next_idx = 0;
        awaitable_event_set(&ev);
    }
    sample s = meter_stop(&m, rounds * k);
    s.ok = st.counter == rounds * k && st.order_errors == 0 && st.await_errors == 0;
    add_note(&s, "%zu rounds x %zu waiters; resumed FIFO: %s;", rounds, k, st.order_errors ? "no" : "yes");
    for (size_t i = 0; i < k; ++i)
        lockstep_coro_destroy(&waiters[i]->coro);
    free(waiters);
    awaitable_event_destroy(&ev);
    return s;
}
#endif
