/*
 * awaitable_event: one Check suite, compiled for every step that has the
 * event (LOCKSTEP_STEP >= 4; earlier steps report the suite as skipped).
 *
 * Waiters are coroutines that record what happened to them: how they got
 * past the await (ready or suspended), how often they ran on, in which order
 * they were resumed, and what the await returned (event_bodies.h).
 */
#include "alloc_delta.h"
#include "check_main.h"
#include "event_bodies.h"
#include "timing.h"

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
    waiters_new_logged(&ev, w, WAITERS, order, &order_len);
    for (int i = 0; i < WAITERS; ++i)
        lockstep_coro_resume(&w[i]->coro);
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
    waiters_new_logged(&ev, w, WAITERS, order, &order_len);
    w[0]->rounds = 2;
    for (int i = 0; i < WAITERS; ++i)
        lockstep_coro_resume(&w[i]->coro);
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
 * event while this thread, once they are running, writes a payload and sets
 * the event. Every waiter must get past the await exactly once, either
 * because it saw the event set or because set() resumed it; none may be
 * lost or resumed twice; and each must read the payload written before
 * set(). Over the run both outcomes must occur (a waiter suspended before
 * set(), a waiter saw the event set in await_ready): a steer (timing.h) delays
 * this thread or the waiter threads, whichever keeps coming first. */
enum { THREADS = 3, WAITERS_EACH = 20, RACE_ROUNDS = 300 };
#define RACE_SECONDS 2.0 /* timing.h: may stop early under load, once both outcomes occurred */

typedef struct racing_thread {
    pthread_t thread;
    waiter_frame *w[WAITERS_EACH];
    atomic_uint *go;
    atomic_uint *running; /* threads that passed `go` this round */
    unsigned round;
    unsigned delay;       /* the steer's share for the waiters */
} racing_thread;

static void *start_waiters(void *arg)
{
    racing_thread *t = arg;
    race_wait_for(t->go, t->round);
    atomic_fetch_add_explicit(t->running, 1, memory_order_relaxed);
    race_jitter(t->delay);
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
    race_budget budget = race_budget_start(RACE_SECONDS);
    unsigned ran = 0;
    for (unsigned round = 1; round <= RACE_ROUNDS; ++round) {
        awaitable_event ev;
        int err = awaitable_event_init(&ev);
        lockstep_assert_in_loop(err == 0, "round %u: awaitable_event_init returned %d", round, err);
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
            t[k].delay = race_steer_other_delay(&steer);
            err = pthread_create(&t[k].thread, NULL, start_waiters, &t[k]);
            lockstep_assert_in_loop(err == 0, "round %u: pthread_create returned %d", round, err);
        }
        race_publish(&go, round);
        for (unsigned spins = 1; atomic_load_explicit(&running, memory_order_relaxed) < THREADS; ++spins)
            race_backoff(spins);
        race_steer_wait(&steer);
        payload = (int)round;
        awaitable_event_set(&ev);
        for (int k = 0; k < THREADS; ++k)
            pthread_join(t[k].thread, NULL);
        unsigned round_suspended = 0;
        for (int k = 0; k < THREADS; ++k) {
            for (int i = 0; i < WAITERS_EACH; ++i) {
                waiter_frame *w = t[k].w[i];
                lockstep_assert_in_loop(w->passed == 1,
                                        "round %u: expected waiter %d to pass its await once, it passed %d times "
                                        "(%s). See " LOCKSTEP_STEP_README ", \"The idea\"",
                                        round, w->index, w->passed,
                                        w->passed == 0 ? "lost: never resumed" : "resumed twice");
                lockstep_assert_in_loop(w->last_error == 0, "round %u: waiter %d's await failed with %d", round,
                                        w->index, w->last_error);
                lockstep_assert_in_loop(w->seen == (int)round,
                                        "round %u: waiter %d read the payload %d, expected %u: it did not see what "
                                        "the setter wrote before set()",
                                        round, w->index, w->seen, round);
                round_suspended += (unsigned)w->suspended;
                fast += (unsigned)w->fast;
                lockstep_coro_destroy(&w->coro);
            }
        }
        suspended += round_suspended;
        passed_ready += THREADS * WAITERS_EACH - round_suspended;
        if (round_suspended == 0) /* set() came first for everyone: the setter waits longer */
            race_steer_update(&steer, true);
        else if (round_suspended == THREADS * WAITERS_EACH) /* set() came last: the waiters wait longer */
            race_steer_update(&steer, false);
        awaitable_event_destroy(&ev);
        ran = round;
        if (race_may_stop(&budget, suspended > 0 && fast > 0))
            break;
    }
    printf("event race: %u suspended, %u passed (%u of them on the lock-free fast path)\n", suspended,
           passed_ready, fast);
    lockstep_check_race_coverage("set vs awaits", "waiters suspended before set()", suspended,
                                 "waiters saw the event set in await_ready (the fast path)", fast, ran,
                                 LOCKSTEP_STEP_README);
}
END_TEST

/* ---- the fast path sees what the setter wrote -------------------------------
 * A waiter that finds the event set in await_ready takes no lock: only
 * set()'s release store of `signaled` and await_ready's acquire load order
 * the setter's earlier writes before the waiter's reads (erratum 3). Here one
 * thread only ever takes that path: each round the setter writes a payload
 * and sets the event, then tells the reader "done" through a relaxed flag,
 * which orders nothing; the reader's first look at the event that round is
 * await_ready, and then it reads the payload. With a relaxed store or load
 * of `signaled`, nothing orders the write before the read, and
 * ThreadSanitizer reports the data race on the payload in the first rounds,
 * on every run. (Without a sanitizer, x86 would hide the bug: the check of
 * the value below is for weaker machines.) */
enum { FAST_ROUNDS = 2000 };
#define FAST_SECONDS 2.0 /* timing.h: fewer rounds under load */

typedef struct fast_reader {
    awaitable_event *ev;
    const int *payload;
    atomic_uint *set_done; /* relaxed: the round whose set() returned; RACE_STOP: the end */
    atomic_uint *consumed; /* release: the reader is done with the round */
    unsigned not_yet;      /* await_ready said "not set" although set() had returned */
    unsigned wrong;        /* payloads that were not the round's */
} fast_reader;

static void *read_on_fast_path(void *arg)
{
    fast_reader *r = arg;
    for (unsigned round = 1;; ++round) {
        unsigned done;
        for (unsigned spins = 1; (done = atomic_load_explicit(r->set_done, memory_order_relaxed)) != round; ++spins) {
            if (done == RACE_STOP)
                return NULL;
            race_backoff(spins);
        }
        awaitable_event_awaiter aw;
        while (!awaitable_event_await_ready(r->ev, &aw)) /* allowed by a relaxed "done"; rare */
            ++r->not_yet;
        r->wrong += *r->payload != (int)round; /* synchronized by signaled only */
        race_publish(r->consumed, round);
    }
    return NULL;
}

START_TEST(fast_path_sees_setter_writes)
{
    awaitable_event ev;
    ck_assert_int_eq(awaitable_event_init(&ev), 0);
    int payload = 0;
    atomic_uint set_done, consumed;
    atomic_init(&set_done, 0);
    atomic_init(&consumed, 0);
    fast_reader r = {&ev, &payload, &set_done, &consumed, 0, 0};
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, read_on_fast_path, &r), 0);
    race_budget budget = race_budget_start(FAST_SECONDS);
    unsigned rounds = 0;
    while (rounds < FAST_ROUNDS && !race_budget_spent(&budget)) {
        race_wait_for(&consumed, rounds); /* the reader is done with the last payload */
        ++rounds;
        awaitable_event_reset(&ev);
        payload = (int)rounds;
        awaitable_event_set(&ev);
        atomic_store_explicit(&set_done, rounds, memory_order_relaxed);
    }
    race_wait_for(&consumed, rounds);
    atomic_store_explicit(&set_done, RACE_STOP, memory_order_relaxed);
    pthread_join(th, NULL);
    printf("fast path: %u rounds, %u looks that did not see the flag yet\n", rounds, r.not_yet);
    ck_assert_msg(r.wrong == 0,
                  "expected the fast path to see the payload written before set() in every round; %u of %u "
                  "rounds read an older one (signaled needs release in set() and acquire in await_ready: see "
                  LOCKSTEP_STEP_README ", \"Memory orders\")",
                  r.wrong, rounds);
    awaitable_event_destroy(&ev);
}
END_TEST

/* ---- the last waiter destroys the event -------------------------------------
 * event.h promises that set() does not touch the event once it resumes the
 * last waiter, so that waiter may destroy it (an event that lives in the
 * frame of the last coroutine to need it). Here the event is on the heap
 * (lockstep_alloc), and the last waiter in line destroys and frees it while
 * set() is still on the stack: on set()'s own thread, or by asking another
 * thread to do it and waiting until it has. A set() that touches the event
 * afterwards is a use after free: AddressSanitizer and ThreadSanitizer
 * report it. */
typedef struct destroyer {
    awaitable_event *ev;
    atomic_uint request; /* 1: destroy the event now */
    atomic_uint done;    /* 1: destroyed and freed */
} destroyer;

static void destroy_and_free(awaitable_event *ev)
{
    awaitable_event_destroy(ev);
    lockstep_free(ev);
}

static void *destroy_on_request(void *arg)
{
    destroyer *d = arg;
    race_wait_for(&d->request, 1);
    destroy_and_free(d->ev);
    race_publish(&d->done, 1);
    return NULL;
}

/* A coroutine that awaits the event once; the last one in line then has the
 * event destroyed, here or on the destroyer's thread. */
typedef struct last_waiter_frame {
    waiter_frame base;  /* awaits once: rounds = 1 */
    bool last;
    destroyer *remote;  /* NULL: destroy on this thread */
    bool destroyed;
} last_waiter_frame;

static lockstep_coro *last_waiter_resume(lockstep_coro *self)
{
    last_waiter_frame *f = (last_waiter_frame *)self;
    lockstep_coro *next = waiter_resume(self);
    if (f->base.passed == 1 && f->last && !f->destroyed) {
        f->destroyed = true;
        if (!f->remote) {
            destroy_and_free(f->base.ev);
        } else {
            race_publish(&f->remote->request, 1);
            race_wait_for(&f->remote->done, 1); /* set() is still below us on the stack */
        }
    }
    return next;
}

static void run_last_waiter_destroys(bool on_another_thread)
{
    enum { WAITERS = 4 };
    awaitable_event *ev = lockstep_alloc(sizeof *ev);
    ck_assert_ptr_nonnull(ev);
    ck_assert_int_eq(awaitable_event_init(ev), 0);
    destroyer remote = {ev, 0, 0};
    atomic_init(&remote.request, 0);
    atomic_init(&remote.done, 0);
    pthread_t th;
    if (on_another_thread)
        ck_assert_int_eq(pthread_create(&th, NULL, destroy_on_request, &remote), 0);

    last_waiter_frame *w[WAITERS];
    for (int i = 0; i < WAITERS; ++i) {
        w[i] = (last_waiter_frame *)lockstep_coro_new(sizeof(last_waiter_frame), last_waiter_resume,
                                                      lockstep_coro_free);
        ck_assert_ptr_nonnull(w[i]);
        w[i]->base.ev = ev;
        w[i]->base.index = i;
        w[i]->base.rounds = 1;
        w[i]->last = i == WAITERS - 1;
        w[i]->remote = on_another_thread ? &remote : NULL;
        lockstep_coro_resume(&w[i]->base.coro);
        ck_assert_int_eq(w[i]->base.suspended, 1);
    }
    awaitable_event_set(ev); /* the last waiter destroys ev before this returns */
    if (on_another_thread)
        pthread_join(th, NULL);
    ck_assert_msg(w[WAITERS - 1]->destroyed, "the last waiter in line was not resumed last");
    for (int i = 0; i < WAITERS; ++i) {
        ck_assert_msg(w[i]->base.passed == 1, "waiter %d passed its await %d times, expected once", i,
                      w[i]->base.passed);
        lockstep_coro_destroy(&w[i]->base.coro);
    }
}

START_TEST(last_waiter_destroys_event)
{
    run_last_waiter_destroys(false);
}
END_TEST

START_TEST(last_waiter_destroys_event_on_another_thread)
{
    run_last_waiter_destroys(true);
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
    waiters_new_logged(&ev, w, 6, order, &order_len);
    for (int i = 0; i < 4; ++i)
        lockstep_coro_resume(&w[i]->coro);
    lockstep_alloc_counts before = lockstep_alloc_totals();
    lockstep_alloc_fail_nth(1);
    lockstep_coro_resume(&w[4]->coro); /* needs to grow: fails */
    lockstep_alloc_fail_none();
    ck_assert_uint_eq(allocs_since(before).failures, 1);
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
    alloc_delta n = allocs_since(before);
    ck_assert_uint_eq(n.allocs, 0);
    ck_assert_uint_eq(n.failures, 0);
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
    static const lockstep_case cases[] = {
        {&set_before_await, 4, NULL, 0, "an await of a set event passes at once, without suspending",
         "steps/04-vector-event/README.md, \"The idea\""},
        {&await_then_set, 4, NULL, 0, "set() resumes a suspended waiter once, with 0",
         "steps/04-vector-event/README.md, \"The idea\""},
        {&many_waiters_resumed_once_in_fifo_order, 4, NULL, 0,
         "set() resumes 1,000 waiters once each, in the order they started waiting",
         "steps/05-intrusive-list/README.md, \"The idea\" (the reverse walk)"},
        {&set_twice, 4, NULL, 0, "a second set() resumes nobody again",
         "steps/04-vector-event/README.md, \"The idea\""},
        {&waiter_awaits_again_after_resume, 4, NULL, 0, "a resumed waiter can await again; reset() makes it suspend",
         "steps/04-vector-event/README.md, \"Where the C differs from the C++\" (reset)"},
        {&waiter_reawaits_during_set, 4, NULL, 0,
         "a waiter that re-awaits while set() is still resuming others: set() read its node's next before "
         "resuming it, so nobody is lost",
         "steps/05-intrusive-list/README.md, \"Errata this step fixes\" (erratum 3: fifo = fifo->next)"},
        {&waiters_on_threads_race_set, 4, NULL, 0,
         "awaits on three threads racing set(): every waiter passes once and sees the setter's writes; both "
         "outcomes occur",
         "steps/04-vector-event/README.md, \"Memory orders\""},
        {&fast_path_sees_setter_writes, 4, NULL, 0,
         "a waiter that finds the event set without the lock sees what the setter wrote before set() (under "
         "ThreadSanitizer: every run)",
         "steps/05-intrusive-list/README.md, \"Errata this step fixes\" (erratum 3: release/acquire on signaled)"},
        {&last_waiter_destroys_event, 4, NULL, 0,
         "the last waiter set() resumes destroys and frees the event while set() is on the stack (use after free "
         "under AddressSanitizer if set() touches it again)",
         "include/lockstep/event.h, awaitable_event_destroy"},
        {&last_waiter_destroys_event_on_another_thread, 4, NULL, 0,
         "as last_waiter_destroys_event, with the event destroyed on another thread",
         "include/lockstep/event.h, awaitable_event_destroy"},
        {&growth_failure_gives_enomem, 4,
         "from step 05 the list node lives in the awaiter: awaiting allocates nothing, so nothing can fail", 4,
         "a failed growth of the waiter array ends that await with ENOMEM and leaves the event and its other "
         "waiters untouched",
         "steps/04-vector-event/README.md, \"Allocation failure\""},
        {&await_allocates_nothing, 5, "step 04 grows an array with lockstep_alloc when waiters arrive", 0,
         "with every allocation failing, 1,000 waiters still register and are resumed: awaiting allocates nothing",
         "steps/05-intrusive-list/README.md, \"The idea\""},
    };
    return lockstep_check_main("event", LOCKSTEP_STEP, cases, sizeof cases / sizeof cases[0], argc, argv);
}
