/*
 * awaitable_event: one Check suite, compiled for every step that has the
 * event (LOCKSTEP_STEP >= 4; earlier steps report the suite as skipped).
 *
 * Waiters are coroutines that record what happened to them: how they got
 * past the await (ready or suspended), how often they ran on, in which order
 * they were resumed, and what the await returned.
 */
#include "check_main.h"
#include "race.h"

#include "lockstep/alloc.h"
#include "lockstep/coro.h"
#include "lockstep/event.h"
#include "lockstep/trigger.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
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

static lockstep_coro *waiter_resume(lockstep_coro *self)
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

static waiter_frame *waiter_new(awaitable_event *ev, int index, int rounds)
{
    waiter_frame *f = (waiter_frame *)lockstep_coro_new(sizeof(waiter_frame), waiter_resume, lockstep_coro_free);
    ck_assert_ptr_nonnull(f);
    f->ev = ev;
    f->index = index;
    f->rounds = rounds;
    return f;
}

/* ---- the cases ------------------------------------------------------------ */

START_TEST(set_before_await)
{
    awaitable_event ev;
    ck_assert_int_eq(awaitable_event_init(&ev), 0);
    awaitable_event_set(&ev);
    waiter_frame *w = waiter_new(&ev, 0, 1);
    lockstep_coro_resume(&w->coro);
    ck_assert(lockstep_coro_done(&w->coro));
    ck_assert_int_eq(w->passed, 1);
    ck_assert_int_eq(w->suspended, 0);
    ck_assert_int_eq(w->last_error, 0);
    lockstep_coro_destroy(&w->coro);
    awaitable_event_destroy(&ev);
}
END_TEST

START_TEST(await_then_set)
{
    awaitable_event ev;
    ck_assert_int_eq(awaitable_event_init(&ev), 0);
    waiter_frame *w = waiter_new(&ev, 0, 1);
    lockstep_coro_resume(&w->coro);
    ck_assert_int_eq(w->passed, 0);
    ck_assert_int_eq(w->suspended, 1);
    awaitable_event_set(&ev);
    ck_assert(lockstep_coro_done(&w->coro));
    ck_assert_int_eq(w->passed, 1);
    ck_assert_int_eq(w->last_error, 0);
    lockstep_coro_destroy(&w->coro);
    awaitable_event_destroy(&ev);
}
END_TEST

START_TEST(many_waiters_resumed_once_in_fifo_order)
{
    enum { WAITERS = 1000 };
    awaitable_event ev;
    ck_assert_int_eq(awaitable_event_init(&ev), 0);
    static int order[WAITERS];
    int order_len = 0;
    waiter_frame *w[WAITERS];
    for (int i = 0; i < WAITERS; ++i) {
        w[i] = waiter_new(&ev, i, 1);
        w[i]->order = order;
        w[i]->order_len = &order_len;
        lockstep_coro_resume(&w[i]->coro);
    }
    ck_assert_int_eq(order_len, 0);
    awaitable_event_set(&ev);
    ck_assert_int_eq(order_len, WAITERS);
    for (int i = 0; i < WAITERS; ++i) {
        ck_assert_msg(order[i] == i, "resumed #%d was waiter %d: not FIFO", i, order[i]);
        ck_assert_int_eq(w[i]->passed, 1);
        ck_assert_int_eq(w[i]->suspended, 1);
        lockstep_coro_destroy(&w[i]->coro);
    }
    awaitable_event_destroy(&ev);
}
END_TEST

START_TEST(set_twice)
{
    awaitable_event ev;
    ck_assert_int_eq(awaitable_event_init(&ev), 0);
    waiter_frame *a = waiter_new(&ev, 0, 1), *b = waiter_new(&ev, 1, 1);
    lockstep_coro_resume(&a->coro);
    awaitable_event_set(&ev);
    awaitable_event_set(&ev); /* no one left to resume, nothing resumed twice */
    ck_assert_int_eq(a->passed, 1);
    lockstep_coro_resume(&b->coro); /* arrives after both: does not suspend */
    ck_assert_int_eq(b->passed, 1);
    ck_assert_int_eq(b->suspended, 0);
    awaitable_event_set(&ev);
    ck_assert_int_eq(a->passed, 1);
    ck_assert_int_eq(b->passed, 1);
    lockstep_coro_destroy(&a->coro);
    lockstep_coro_destroy(&b->coro);
    awaitable_event_destroy(&ev);
}
END_TEST

START_TEST(waiter_awaits_again_after_resume)
{
    awaitable_event ev;
    ck_assert_int_eq(awaitable_event_init(&ev), 0);
    lockstep_trigger park;
    lockstep_trigger_init(&park);
    waiter_frame *w = waiter_new(&ev, 0, 3);
    w->park = &park;

    lockstep_coro_resume(&w->coro); /* first await: suspends */
    awaitable_event_set(&ev);       /* resumed; parks */
    ck_assert_int_eq(w->passed, 1);
    lockstep_trigger_fire(&park);   /* second await: still set, passes; parks */
    ck_assert_int_eq(w->passed, 2);
    ck_assert_int_eq(w->suspended, 1);
    awaitable_event_reset(&ev);
    lockstep_trigger_fire(&park);   /* third await: reset, suspends again */
    ck_assert_int_eq(w->passed, 2);
    ck_assert_int_eq(w->suspended, 2);
    awaitable_event_set(&ev);
    ck_assert_int_eq(w->passed, 3);
    ck_assert(lockstep_coro_done(&w->coro));
    lockstep_coro_destroy(&w->coro);
    awaitable_event_destroy(&ev);
}
END_TEST

/* The first waiter set() resumes resets the event and awaits again at once,
 * reusing its awaiter while set() is still walking the waiters. set() must
 * have read what it needs of that waiter (step 05: the node's `next`) before
 * resuming it: otherwise it follows the re-linked node and loses the rest. */
START_TEST(waiter_reawaits_during_set)
{
    enum { WAITERS = 5 };
    awaitable_event ev;
    ck_assert_int_eq(awaitable_event_init(&ev), 0);
    static int order[WAITERS + 1];
    int order_len = 0;
    waiter_frame *w[WAITERS];
    for (int i = 0; i < WAITERS; ++i) {
        w[i] = waiter_new(&ev, i, i == 0 ? 2 : 1);
        w[i]->order = order;
        w[i]->order_len = &order_len;
        lockstep_coro_resume(&w[i]->coro);
    }
    w[0]->rearm = true;
    awaitable_event_set(&ev);
    for (int i = 1; i < WAITERS; ++i)
        ck_assert_msg(w[i]->passed == 1, "waiter %d was lost when waiter 0 re-awaited during set()", i);
    ck_assert_int_eq(w[0]->passed, 1);
    ck_assert_int_eq(w[0]->suspended, 2); /* waiting again, after the reset */
    ck_assert_int_eq(order_len, WAITERS);
    for (int i = 0; i < WAITERS; ++i)
        ck_assert_int_eq(order[i], i);

    awaitable_event_set(&ev);
    ck_assert_int_eq(w[0]->passed, 2);
    for (int i = 0; i < WAITERS; ++i) {
        ck_assert(lockstep_coro_done(&w[i]->coro));
        lockstep_coro_destroy(&w[i]->coro);
    }
    awaitable_event_destroy(&ev);
}
END_TEST

/* ---- waiters on several threads race set() ---------------------------------
 * Each round: THREADS threads each start WAITERS_EACH waiters on a fresh
 * event while this thread, once they are running and after a steered delay
 * (race.h), writes a payload and sets the event. Every waiter must get past the await exactly once, either
 * because it saw the event set or because set() resumed it; none may be
 * lost or resumed twice; and each must read the payload written before
 * set(). A waiter that sees the flag on the lock-free fast path is ordered
 * after the payload only by set()'s release and await_ready's acquire
 * (errata 3): with relaxed, ThreadSanitizer reports the payload read. */
enum { THREADS = 3, WAITERS_EACH = 20, RACE_ROUNDS = 300 };

typedef struct racing_thread {
    pthread_t thread;
    waiter_frame *w[WAITERS_EACH];
    atomic_uint *go;
    atomic_uint *running; /* threads that passed `go` this round */
    unsigned round;
} racing_thread;

static void *start_waiters(void *arg)
{
    racing_thread *t = arg;
    race_wait_for(t->go, t->round);
    atomic_fetch_add_explicit(t->running, 1, memory_order_relaxed);
    for (int i = 0; i < WAITERS_EACH; ++i)
        lockstep_coro_resume(&t->w[i]->coro);
    return NULL;
}

START_TEST(waiters_on_threads_race_set)
{
    unsigned suspended = 0, passed_ready = 0, fast = 0;
    int payload = 0;
    atomic_uint go, running;
    atomic_init(&go, 0);
    race_steer steer = {0};
    for (unsigned round = 1; round <= RACE_ROUNDS; ++round) {
        awaitable_event ev;
        ck_assert_int_eq(awaitable_event_init(&ev), 0);
        atomic_init(&running, 0);
        racing_thread t[THREADS];
        for (int k = 0; k < THREADS; ++k) {
            for (int i = 0; i < WAITERS_EACH; ++i) {
                t[k].w[i] = waiter_new(&ev, k * WAITERS_EACH + i, 1);
                t[k].w[i]->payload = &payload;
            }
            t[k].go = &go;
            t[k].running = &running;
            t[k].round = round;
            ck_assert_int_eq(pthread_create(&t[k].thread, NULL, start_waiters, &t[k]), 0);
        }
        race_publish(&go, round);
        while (atomic_load_explicit(&running, memory_order_relaxed) < THREADS)
            race_pause();
        race_steer_wait(&steer);
        payload = (int)round;
        awaitable_event_set(&ev);
        for (int k = 0; k < THREADS; ++k)
            pthread_join(t[k].thread, NULL);
        unsigned round_suspended = 0;
        for (int k = 0; k < THREADS; ++k) {
            for (int i = 0; i < WAITERS_EACH; ++i) {
                waiter_frame *w = t[k].w[i];
                ck_assert_msg(w->passed == 1, "round %u: waiter %d passed %d times", round, w->index, w->passed);
                ck_assert_int_eq(w->last_error, 0);
                ck_assert_int_eq(w->seen, (int)round);
                round_suspended += (unsigned)w->suspended;
                fast += (unsigned)w->fast;
                lockstep_coro_destroy(&w->coro);
            }
        }
        suspended += round_suspended;
        passed_ready += THREADS * WAITERS_EACH - round_suspended;
        if (round_suspended == 0) /* set() came first for everyone: wait longer */
            race_steer_update(&steer, true);
        else if (round_suspended == THREADS * WAITERS_EACH) /* set() came last: wait less */
            race_steer_update(&steer, false);
        awaitable_event_destroy(&ev);
    }
    printf("event race: %u suspended, %u passed (%u of them on the lock-free fast path)\n", suspended,
           passed_ready, fast);
    ck_assert_msg(suspended > 0, "no waiter ever suspended before set()");
    ck_assert_msg(fast > 0, "no waiter ever saw the event set in await_ready (the fast path)");
}
END_TEST

/* ---- step 04: growing the array fails --------------------------------------
 * Four waiters fill the first array; the fifth needs a bigger one, and that
 * allocation fails. Its await must end at once with ENOMEM, unregistered;
 * the four others must be untouched, a sixth waiter must still be able to
 * grow the array, and set() must resume the five registered ones in order. */
START_TEST(growth_failure_gives_enomem)
{
    awaitable_event ev;
    ck_assert_int_eq(awaitable_event_init(&ev), 0);
    static int order[6];
    int order_len = 0;
    waiter_frame *w[6];
    for (int i = 0; i < 6; ++i) {
        w[i] = waiter_new(&ev, i, 1);
        w[i]->order = order;
        w[i]->order_len = &order_len;
    }
    for (int i = 0; i < 4; ++i)
        lockstep_coro_resume(&w[i]->coro);
    lockstep_alloc_counts before = lockstep_alloc_totals();
    lockstep_alloc_fail_nth(1);
    lockstep_coro_resume(&w[4]->coro); /* needs to grow: fails */
    lockstep_alloc_fail_none();
    ck_assert_uint_eq(lockstep_alloc_totals().failures - before.failures, 1);
    ck_assert_msg(w[4]->passed == 1 && w[4]->suspended == 0, "the failed waiter must continue at once");
    ck_assert_int_eq(w[4]->last_error, ENOMEM);
    ck_assert_int_eq(order_len, 1);

    lockstep_coro_resume(&w[5]->coro); /* the next growth succeeds: the array was left intact */
    ck_assert_int_eq(w[5]->suspended, 1);

    awaitable_event_set(&ev);
    static const int expected[6] = {4, 0, 1, 2, 3, 5};
    ck_assert_int_eq(order_len, 6);
    for (int i = 0; i < 6; ++i)
        ck_assert_msg(order[i] == expected[i], "resumed #%d was waiter %d, not %d", i, order[i], expected[i]);
    for (int i = 0; i < 6; ++i) {
        ck_assert_int_eq(w[i]->passed, 1); /* waiter 4 not resumed by set: never registered */
        ck_assert_int_eq(w[i]->last_error, i == 4 ? ENOMEM : 0);
        lockstep_coro_destroy(&w[i]->coro);
    }
    awaitable_event_destroy(&ev);
}
END_TEST

/* ---- step 05 on: awaiting allocates nothing ----------------------------------
 * With every allocation failing, a thousand waiters still register and are
 * resumed, and the allocator counts no allocation at all. */
START_TEST(await_allocates_nothing)
{
    enum { WAITERS = 1000 };
    awaitable_event ev;
    ck_assert_int_eq(awaitable_event_init(&ev), 0);
    waiter_frame **w = malloc(WAITERS * sizeof *w);
    ck_assert_ptr_nonnull(w);
    for (int i = 0; i < WAITERS; ++i)
        w[i] = waiter_new(&ev, i, 1);

    lockstep_alloc_counts before = lockstep_alloc_totals();
    lockstep_alloc_fail_after(0);
    for (int i = 0; i < WAITERS; ++i)
        lockstep_coro_resume(&w[i]->coro);
    awaitable_event_set(&ev);
    lockstep_alloc_fail_none();
    lockstep_alloc_counts after = lockstep_alloc_totals();
    ck_assert_uint_eq(after.allocs - before.allocs, 0);
    ck_assert_uint_eq(after.failures - before.failures, 0);
    for (int i = 0; i < WAITERS; ++i) {
        ck_assert_int_eq(w[i]->passed, 1);
        ck_assert_int_eq(w[i]->suspended, 1);
        ck_assert_int_eq(w[i]->last_error, 0);
        lockstep_coro_destroy(&w[i]->coro);
    }
    free(w);
    awaitable_event_destroy(&ev);
}
END_TEST

int main(int argc, char **argv)
{
    const lockstep_case cases[] = { /* automatic: START_TEST names are pointer variables */
        {set_before_await, 4, NULL, 0},
        {await_then_set, 4, NULL, 0},
        {many_waiters_resumed_once_in_fifo_order, 4, NULL, 0},
        {set_twice, 4, NULL, 0},
        {waiter_awaits_again_after_resume, 4, NULL, 0},
        {waiter_reawaits_during_set, 4, NULL, 0},
        {waiters_on_threads_race_set, 4, NULL, 0},
        {growth_failure_gives_enomem, 4,
         "from step 05 the list node lives in the awaiter: awaiting allocates nothing, so nothing can fail", 4},
        {await_allocates_nothing, 5, "step 04 grows an array with lockstep_alloc when waiters arrive", 0},
    };
    return lockstep_check_main("event", LOCKSTEP_STEP, cases, sizeof cases / sizeof cases[0], argc, argv);
}
