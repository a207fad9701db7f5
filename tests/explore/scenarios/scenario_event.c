/*
 * Scenarios for awaitable_event, compiled for every step that has it, like
 * tests/unit/test_event.c.
 *
 * A waiter is a coroutine `co_await event;` that frees its own frame when it
 * ends (a fire-and-forget coroutine), so that its awaiter, and the list node
 * in it (step 05), is gone as soon as set() resumes it: set() must not touch
 * it after that. What each waiter did is counted outside its frame.
 *
 * On every schedule of every scenario, each waiter checks, at the moment it
 * continues past its co_await, that it had a reason to: set() was called
 * before (the setter raises a flag just before it calls set(), and nothing
 * else signals the event, so an await may only see "signaled" once that flag
 * is up), and a waiter that suspended is resumed by set() itself, on the
 * thread inside set(). Otherwise: `continued before set`.
 */
#include "explore.h"

#include "lockstep/alloc.h"
#include "lockstep/event.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

const char *const explore_component = "event";
const int explore_step = LOCKSTEP_STEP;

/* ---- the waiter ------------------------------------------------------------ */

enum { MAX_WAITERS = 4 };

typedef struct event_context event_context;

typedef struct waiter_frame {
    lockstep_coro coro;
    awaitable_event *ev;
    awaitable_event_awaiter aw;
    event_context *c;    /* the scenario's: the step's code resumes the waiter with nothing else */
    int id;
    bool suspended;      /* this await suspended, so set() resumed it */
    bool late;           /* await_suspend returned false: it did not suspend after all */
    bool reawait;        /* once resumed by set(), await the event again */
    bool destroys_event; /* once resumed by set(), destroy and free the event */
} waiter_frame;

static const char *const g_names[MAX_WAITERS] = {"waiter A", "waiter B", "waiter C", "waiter D"};

/* What set() has done, for the waiters' checks (plain: one thread runs at a
 * time). set_called goes up just before a thread calls set(), and stays
 * up; set_thread is the thread inside set() (explore_self(): EXPLORE_MAIN for the
 * main thread), or NO_SETTER outside it. */
enum { NO_SETTER = -2 };

/* A scenario's state, one value: every callback gets it as its context
 * (explore.h), zeroed before the search. */
struct event_context {
    awaitable_event *ev;
    bool ev_gone;
    int awaits[MAX_WAITERS]; /* awaits each waiter finished */
    int order[2 * MAX_WAITERS], norder; /* who set() resumed, in order */
    bool started[MAX_WAITERS];
    int nwaiters; /* the waiter frames the setup makes (4: set_vs_four_awaits_on_two_threads) */
    waiter_frame *waiters[MAX_WAITERS];
    bool set_called;
    int set_thread;
    /* For FIFO order, in the execution's terms (note_arrival says why). */
    int suspending[MAX_WAITERS];          /* 1 once its first await_suspend is about to begin */
    unsigned arrived_before[MAX_WAITERS]; /* bit x: waiter x's `suspending` happened before its own
                                             first await_suspend returned true */
};

const size_t explore_context_size = sizeof(event_context);

/* Its fields, for the trace: a race on one names it (explore.h). */
const explore_field explore_context_fields[] = {
    {offsetof(event_context, ev), sizeof ((event_context *)0)->ev, "ev"},
    {offsetof(event_context, ev_gone), sizeof ((event_context *)0)->ev_gone, "ev_gone"},
    {offsetof(event_context, awaits), sizeof ((event_context *)0)->awaits, "awaits"},
    {offsetof(event_context, order), sizeof ((event_context *)0)->order, "order"},
    {offsetof(event_context, norder), sizeof ((event_context *)0)->norder, "norder"},
    {offsetof(event_context, started), sizeof ((event_context *)0)->started, "started"},
    {offsetof(event_context, nwaiters), sizeof ((event_context *)0)->nwaiters, "nwaiters"},
    {offsetof(event_context, waiters), sizeof ((event_context *)0)->waiters, "waiters"},
    {offsetof(event_context, set_called), sizeof ((event_context *)0)->set_called, "set_called"},
    {offsetof(event_context, set_thread), sizeof ((event_context *)0)->set_thread, "set_thread"},
    {offsetof(event_context, suspending), sizeof ((event_context *)0)->suspending, "suspending"},
    {offsetof(event_context, arrived_before), sizeof ((event_context *)0)->arrived_before, "arrived_before"},
};
const size_t explore_context_nfields = sizeof explore_context_fields / sizeof explore_context_fields[0];

/* The waiter, continuing past its co_await: was it allowed to? */
static void check_continuation(const waiter_frame *f)
{
    const event_context *c = f->c;
    const char *n = g_names[f->id];
    if (f->suspended && c->set_thread != explore_self())
        explore_fail("continued before set", "%s, suspended on the event, was resumed past its co_await on "
                     "T%d, which is not inside set(): only set() may resume a waiter", n, explore_self());
    if (!c->set_called)
        explore_fail("continued before set", "%s continued past its co_await (%s) before set() was called: "
                     "nothing had signaled the event", n,
                     f->suspended ? "resumed after it suspended"
                     : f->late    ? "await_suspend returned false: it did not suspend"
                                  : "await_ready said signaled");
}

/*
 * Which waiter arrived first, as the execution holds it. The model has no
 * real-time order (RC11 has none): "A suspended before B began" is an
 * order of the schedule, not of the execution, and a check that reads it
 * makes the search run each order of the two waiters' steps. What the
 * execution holds is happens-before. Each waiter writes `suspending` just
 * before its first await_suspend; once that await_suspend has returned
 * true (the waiter is in the event's list), the waiter asks, with
 * explore_read_settled, which other waiters' `suspending` happens before
 * it. If waiter X's does, and both suspended, X's push came first:
 *
 *   - steps 04-06 (the mutex): the only way X's thread reaches this one
 *     before it returns is program order (one thread) or a chain of
 *     unlock-to-lock edges into this waiter's lock (5.1.2.4p6); X's write
 *     comes just before X's own lock, so X's critical section came before
 *     this one's, and X's push with it;
 *   - steps 07-09 (the lock-free list): this waiter's acquires are its
 *     loads of `state` before its compare-exchange; one that reads X's
 *     release push, or a later read-modify-write in its release sequence
 *     (5.1.2.4p10: every later push and set() is one), synchronizes with
 *     it (p11), and a load that read X's push or one after it precedes
 *     this push in modification order (read-write coherence, p17).
 *
 * And the other way round: a push before this one makes X's write happen
 * before it, by the same edges. So "X's write happens before" is exactly
 * "X arrived first" for two waiters that suspended, on one thread or two,
 * and set() must resume X first. The question is one of the execution:
 * the same in every schedule that makes it, so the step that asks stays
 * independent of the other threads' steps (step.c).
 */
static void note_arrival(event_context *c, int id)
{
    for (int x = 0; x < c->nwaiters; ++x) {
        int v;
        if (x != id && explore_read_settled(&c->suspending[x], &v) && v)
            c->arrived_before[id] |= 1u << x;
    }
}

static lockstep_coro *waiter_resume(lockstep_coro *self)
{
    waiter_frame *f = (waiter_frame *)self;
    event_context *c = f->c;
    switch (self->resume_point) {
    case 0:
    again:
        self->resume_point = 1;
        f->suspended = false;
        f->late = false;
        if (!awaitable_event_await_ready(f->ev, &f->aw)) {
            f->suspended = true; /* written before self is published */
            int id = f->id; /* once suspended, the frame may be gone: touch nothing of it */
            bool first = !c->suspending[id];
            c->suspending[id] = 1; /* (written once: its first await) */
            if (awaitable_event_await_suspend(f->ev, &f->aw, self)) {
                if (first)
                    note_arrival(c, id);
                return NULL;
            }
            f->suspended = false; /* set meanwhile */
            f->late = true;
        }
        /* fall through */
    case 1:
        check_continuation(f);
        if (f->suspended)
            explore_note("%s continues: set() resumed it", g_names[f->id]);
        ++c->awaits[f->id];
        if (f->suspended)
            c->order[c->norder++] = f->id;
        if (awaitable_event_await_resume(&f->aw) != 0)
            explore_fail("wrong value", "%s's await ended with error %d", g_names[f->id],
                         awaitable_event_await_resume(&f->aw));
        if (f->reawait) {
            f->reawait = false;
            explore_note("%s awaits the event again", g_names[f->id]);
            goto again;
        }
        if (f->destroys_event && f->suspended) {
            explore_note("%s, resumed by set(), destroys and frees the event", g_names[f->id]);
            awaitable_event_destroy(f->ev);
            lockstep_free(f->ev);
            c->ev_gone = true;
        }
        explore_note("%s ends: its frame is freed", g_names[f->id]);
        lockstep_coro_free(self);
        return NULL;
    }
    return NULL;
}

static void waiter_destroy(lockstep_coro *self) { lockstep_coro_free(self); }

bool explore_decode(const char *field, const volatile void *obj, uintptr_t v, char *buf, size_t size)
{
    (void)obj;
    if (strcmp(field, "signaled") == 0) { /* steps 04-06: a flag */
        snprintf(buf, size, "%s", v ? "true" : "false");
        return true;
    }
    if (strcmp(field, "state") != 0) /* step 07: one word, "signaled" or the list head */
        return false;
    if (v == 0) {
        snprintf(buf, size, "NULL (no waiters)");
        return true;
    }
    /* By the names the setup gave the event and the waiters' frames. */
    const char *name = explore_name_of((const void *)v);
    if (name && strcmp(name, "event") == 0) {
        snprintf(buf, size, "signaled (the event's address)");
        return true;
    }
#if LOCKSTEP_STEP >= 5 /* the awaiter carries a list node */
    const char *waiter = explore_name_of((const void *)(v - offsetof(waiter_frame, aw.n)));
    for (int i = 0; i < MAX_WAITERS; ++i)
        if (waiter && strcmp(waiter, g_names[i]) == 0) {
            snprintf(buf, size, "%s's node", g_names[i]);
            return true;
        }
#endif
    return false;
}

/* The event, and n waiter frames (A, B, ...), not started yet. */
static void make_waiters(event_context *c, int n)
{
    c->nwaiters = n;
    c->ev = lockstep_alloc(sizeof *c->ev);
    if (!c->ev || awaitable_event_init(c->ev) != 0)
        explore_fail("setup", "could not make the event");
    explore_name(c->ev, "event");
    c->ev_gone = false;
    c->norder = 0;
    c->set_called = false;
    c->set_thread = NO_SETTER;
    for (int i = 0; i < c->nwaiters; ++i) {
        c->awaits[i] = 0;
        c->started[i] = false;
        c->suspending[i] = 0;
        c->arrived_before[i] = 0;
        waiter_frame *f = (waiter_frame *)lockstep_coro_new(sizeof *f, waiter_resume, waiter_destroy);
        if (!f)
            explore_fail("setup", "could not make a waiter");
        f->ev = c->ev;
        f->c = c;
        f->id = i;
        explore_name_coro(f, g_names[i]);
        c->waiters[i] = f;
    }
}

static void start_waiter(event_context *c, int i)
{
    explore_note("%s: co_await event", g_names[i]);
    c->started[i] = true;
    lockstep_coro_resume(&c->waiters[i]->coro);
}

static void start_a(void *ctx) { start_waiter(ctx, 0); }
static void start_b(void *ctx) { start_waiter(ctx, 1); }
static void start_c(void *ctx) { start_waiter(ctx, 2); }
static void start_a_then_b(void *ctx) { start_waiter(ctx, 0); start_waiter(ctx, 1); }
static void start_c_then_d(void *ctx) { start_waiter(ctx, 2); start_waiter(ctx, 3); }

/* set(), with the flags the waiters check: up before the call, so that a
 * waiter that sees the event signaled finds it up. */
static void call_set(void *ctx)
{
    event_context *c = ctx;
    c->set_called = true;
    c->set_thread = explore_self();
    awaitable_event_set(c->ev);
    c->set_thread = NO_SETTER;
}

static void set(void *ctx)
{
    event_context *c = ctx;
    explore_note("set the event");
    call_set(c);
}

static void reset(void *ctx)
{
    event_context *c = ctx;
    explore_note("reset the event");
    awaitable_event_reset(c->ev);
}

/* Every started waiter finished its awaits exactly once each; the ones set()
 * resumed came in arrival order (fifo_by_id: the waiters were started in id
 * order on one thread, so A arrived first); then the event is torn down. */
static void check_waiters(event_context *c, int expected_awaits, bool fifo_by_id)
{
    for (int i = 0; i < c->nwaiters; ++i) {
        if (!c->started[i]) {
            lockstep_coro_destroy(&c->waiters[i]->coro);
            continue;
        }
        explore_culprit(c->waiters[i]); /* --graph: its node's publication, and its resumes */
        if (c->awaits[i] == 0)
            explore_fail("lost wake-up", "%s is still suspended on the event, though it was set and every thread has "
                         "finished: nobody will ever resume it", g_names[i]);
        if (c->awaits[i] != expected_awaits)
            explore_fail("resumed twice", "%s finished %d awaits, expected %d", g_names[i], c->awaits[i],
                         expected_awaits);
    }
    for (int k = 1; k < c->norder; ++k)
        if (fifo_by_id && c->order[k - 1] > c->order[k])
            explore_fail("FIFO order", "set() resumed %s before %s, which arrived first", g_names[c->order[k - 1]],
                         g_names[c->order[k]]);
    /* On one thread or across threads: a waiter whose await_suspend began
     * before another's had returned, in happens-before, arrived first
     * (note_arrival), so set() must resume it first. */
    for (int k = 1; k < c->norder; ++k)
        for (int m = 0; m < k; ++m)
            if (c->arrived_before[c->order[m]] & (1u << c->order[k]))
                explore_fail("FIFO order", "set() resumed %s before %s, though %s had begun to suspend before %s's "
                             "await_suspend returned (happens-before): %s arrived first", g_names[c->order[m]],
                             g_names[c->order[k]], g_names[c->order[k]], g_names[c->order[m]], g_names[c->order[k]]);
    if (!c->ev_gone) {
        awaitable_event_destroy(c->ev);
        lockstep_free(c->ev);
    }
}

static void check_one_await(void *ctx) { check_waiters(ctx, 1, true); }
static void check_two_awaits(void *ctx) { check_waiters(ctx, 2, true); }
/* Waiters on two threads: which arrived first is what happens-before says
 * (note_arrival), not the waiters' ids. */
static void check_awaits_on_threads(void *ctx) { check_waiters(ctx, 1, false); }

/* With a reset in the race, the waiter may rightly stay suspended: the event
 * ended unsignaled. Then the check sets it to let the waiter go. */
static void check_after_reset(void *ctx)
{
    event_context *c = ctx;
    if (c->awaits[0] == 0) {
        explore_culprit(c->waiters[0]);
        awaitable_event_awaiter probe; /* asks the event through its API: every step's has await_ready */
        if (awaitable_event_await_ready(c->ev, &probe))
            explore_fail("lost wake-up", "waiter A is still suspended, though the event ended signaled");
        call_set(c);
    }
    check_waiters(c, 1, true);
}

static void make_event(void *ctx) { make_waiters(ctx, 2); }
static void make_three_waiters(void *ctx) { make_waiters(ctx, 3); }
static void make_four_waiters(void *ctx) { make_waiters(ctx, 4); }

static void reawait_setup(void *ctx)
{
    event_context *c = ctx;
    make_event(c);
    c->waiters[0]->reawait = true;
}

static void destroys_setup(void *ctx)
{
    event_context *c = ctx;
    make_event(c);
    c->waiters[0]->destroys_event = true;
}

/* One scenario per line that starts with `{.name = "x",`: CMake registers a test per name; main.c
 * decides from min_step and max_step whether it applies to this step. */
const explore_scenario explore_scenarios[] = {
    {.name = "set_vs_await", .min_step = 4,
     .about = "T0 sets the event while T1's waiter awaits it: resumed exactly once",
     .nthreads = 2, .thread_names = {"setter", "waiters"}, .threads = {set, start_a},
     .setup = make_event, .check = check_one_await},
    {.name = "set_vs_two_awaits", .min_step = 4,
     .about = "T0 sets the event while T1 starts waiter A, then waiter B: each resumed once, in FIFO order",
     .nthreads = 2, .thread_names = {"setter", "waiters"}, .threads = {set, start_a_then_b},
     .setup = make_event, .check = check_one_await},
    {.name = "set_vs_awaits_on_two_threads", .min_step = 4,
     .about = "T0 sets the event while T1's waiter A and T2's waiter B await it: neither continues before set()",
     .nthreads = 3, .thread_names = {"setter", "waiter A", "waiter B"}, .threads = {set, start_a, start_b},
     .setup = make_event, .check = check_awaits_on_threads},
    {.name = "set_vs_reset_vs_await", .min_step = 4,
     .about = "T0 sets, T1 resets, T2's waiter awaits: a waiter left suspended means the event ended unsignaled",
     .nthreads = 3, .thread_names = {"setter", "resetter", "waiters"}, .threads = {set, reset, start_a},
     .setup = make_event, .check = check_after_reset},
    {.name = "reawait_during_set", .min_step = 4,
     .about = "T0 sets the event; T1's waiter, resumed by set(), awaits it again at once",
     .nthreads = 2, .thread_names = {"setter", "waiters"}, .threads = {set, start_a},
     .setup = reawait_setup, .check = check_two_awaits},
    {.name = "last_waiter_destroys_event", .min_step = 4,
     .about = "T0 sets the event; T1's waiter, resumed by set(), destroys and frees the event",
     .nthreads = 2, .thread_names = {"setter", "waiters"}, .threads = {set, start_a},
     .setup = destroys_setup, .check = check_one_await},
    {.name = "set_vs_four_awaits_on_two_threads", .min_step = 4,
     .about = "T0 sets the event while T1 starts waiters A then B and T2 waiters C then D: each resumed once, "
              "none before set()",
     .nthreads = 3, .thread_names = {"setter", "waiters A, B", "waiters C, D"},
     .threads = {set, start_a_then_b, start_c_then_d},
     .setup = make_four_waiters, .check = check_awaits_on_threads},
    /* Every scenario thread the explorer has (EXPLORE_MAX_THREADS): on steps 07-09 each waiter's push may
     * lose to the other two and to set(), so its compare-exchange may fail up to three times. */
    {.name = "set_vs_three_waiter_threads", .min_step = 4,
     .about = "T0 sets the event while T1's waiter A, T2's waiter B and T3's waiter C await it: each resumed "
              "once, none before set()",
     .nthreads = 4, .thread_names = {"setter", "waiter A", "waiter B", "waiter C"},
     .threads = {set, start_a, start_b, start_c},
     .setup = make_three_waiters, .check = check_awaits_on_threads},
};
const size_t explore_nscenarios = sizeof explore_scenarios / sizeof explore_scenarios[0];
