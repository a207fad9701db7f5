/*
 * awaitable_event under load: set() raced against many coroutines awaiting
 * on the executor's threads.
 *
 * Each round: WAITERS coroutines hop onto a two-thread executor and await a
 * fresh event; meanwhile this thread sets it. A waiter that arrives before
 * set() is resumed by it (on this thread); one that arrives after passes at
 * once (on a worker). Every waiter must pass exactly once: none lost, none
 * resumed twice. Over the run both must occur; a steer (timing.h) delays this
 * thread or the waiters, whichever keeps coming first (on one CPU the
 * coverage check is reported skipped). LOCKSTEP_ITERATIONS sets the total
 * number of awaits (default a million).
 */
#include "check_main.h"
#include "timing.h"

#include "lockstep/alloc.h"
#include "lockstep/coro.h"
#include "lockstep/event.h"
#include "lockstep/executor.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { WAITERS = 50 };

/* waiter: co_await executor; co_await event; count. */
typedef struct hop_waiter {
    lockstep_coro coro;
    lockstep_executor *ex;
    lockstep_executor_awaiter hop;
    awaitable_event *ev;
    awaitable_event_awaiter aw;
    int passed;
    int suspended;
    int error;             /* what the await returned */
    unsigned delay;        /* the steer's share, before the await */
    atomic_uint *finished; /* the last thing the waiter touches */
} hop_waiter;

static lockstep_coro *hop_waiter_resume(lockstep_coro *self)
{
    hop_waiter *f = (hop_waiter *)self;
    switch (self->resume_point) {
    case 0:
        self->resume_point = 1;
        lockstep_executor_await_suspend(f->ex, &f->hop, self); /* always suspends */
        return NULL;
    case 1: /* on a worker */
        self->resume_point = 2;
        race_jitter(f->delay);
        if (!awaitable_event_await_ready(f->ev, &f->aw)) {
            f->suspended = 1;
            if (awaitable_event_await_suspend(f->ev, &f->aw, self))
                return NULL;
            f->suspended = 0;
        }
        /* fall through */
    case 2:
        f->error = awaitable_event_await_resume(&f->aw);
        ++f->passed;
        self->resume_point = LOCKSTEP_CORO_DONE;
        /* release: the frame is the test's again once it sees the count */
        atomic_fetch_add_explicit(f->finished, 1, memory_order_release);
        return NULL;
    default: /* on any thread: Check's assertions belong to the test's thread */
        fputs("stress_event: a waiter was resumed after its end\n", stderr);
        abort();
    }
}

START_TEST(set_races_awaits_on_executor)
{
    size_t rounds = lockstep_iterations(1000000) / WAITERS;
    if (rounds == 0)
        rounds = 1;
    lockstep_executor ex;
    ck_assert_int_eq(lockstep_executor_init(&ex, 2), 0);
    hop_waiter *w[WAITERS];
    uint64_t suspended = 0, ready = 0;
    race_steer steer = {0};
    race_budget budget = race_budget_start(6.0); /* timing.h: may stop early under load */
    size_t ran = 0;
    for (size_t round = 0; round < rounds; ++round) {
        awaitable_event ev;
        int err = awaitable_event_init(&ev);
        lockstep_assert_in_loop(err == 0, "round %zu: awaitable_event_init returned %d", round, err);
        atomic_uint finished;
        atomic_init(&finished, 0);
        for (int i = 0; i < WAITERS; ++i) {
            w[i] = (hop_waiter *)lockstep_coro_new(sizeof(hop_waiter), hop_waiter_resume, lockstep_coro_free);
            lockstep_assert_in_loop(w[i] != NULL, "round %zu: waiter %d's frame could not be allocated", round, i);
            w[i]->ex = &ex;
            w[i]->ev = &ev;
            w[i]->finished = &finished;
            w[i]->delay = race_steer_other_delay(&steer);
            lockstep_coro_resume(&w[i]->coro); /* hops onto the executor */
        }
        race_steer_wait(&steer);
        awaitable_event_set(&ev);
        race_wait_for(&finished, WAITERS);
        unsigned round_suspended = 0;
        for (int i = 0; i < WAITERS; ++i) {
            lockstep_assert_in_loop(w[i]->passed == 1,
                                    "round %zu: expected waiter %d to pass its await once, it passed %d times (%s). "
                                    "See " LOCKSTEP_STEP_README ", \"The idea\"",
                                    round, i, w[i]->passed,
                                    w[i]->passed == 0 ? "lost: never resumed" : "resumed twice");
            lockstep_assert_in_loop(w[i]->error == 0, "round %zu: waiter %d's await failed with %d", round, i,
                                    w[i]->error);
            round_suspended += (unsigned)w[i]->suspended;
            lockstep_coro_destroy(&w[i]->coro);
        }
        suspended += round_suspended;
        ready += WAITERS - round_suspended;
        if (round_suspended == 0) /* set() came first for everyone: the setter waits longer */
            race_steer_update(&steer, true);
        else if (round_suspended == WAITERS) /* set() came last: the waiters wait longer */
            race_steer_update(&steer, false);
        awaitable_event_destroy(&ev);
        ran = round + 1;
        if (race_may_stop(&budget, suspended > 0 && ready > 0))
            break;
    }
    lockstep_executor_destroy(&ex);
    lockstep_check_race_coverage("set vs awaits on the executor", "awaits suspended before set()", suspended,
                                 "awaits came after set()", ready, ran, LOCKSTEP_STEP_README);
}
END_TEST

int main(int argc, char **argv)
{
    static const lockstep_case cases[] = {
        {&set_races_awaits_on_executor, 4, NULL, 0,
         "set() racing awaits on the executor's threads: every waiter passes exactly once; both outcomes occur",
         "steps/04-vector-event/README.md, \"The idea\""},
    };
    return lockstep_check_main("stress.event", LOCKSTEP_STEP, cases, sizeof cases / sizeof cases[0], argc, argv);
}
