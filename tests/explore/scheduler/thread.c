/*
 * Threads and turns: real threads, one at a time.
 *
 * Each scenario thread stops at every scheduling point (hook.h) and waits
 * until the scheduler names it. The thread that is running decides who
 * goes next when it reaches its next point (or ends), so at any moment
 * exactly one thread runs; the others wait on st()->cv. Where two or more
 * could go, the choice is a decision of the search (path.c).
 *
 * A thread that has arrived at a point may still be unable to go: its next
 * operation locks a mutex another thread holds, it waits on a condition
 * variable nobody has signalled, or it waits until a scenario's predicate
 * holds (explore_wait_until). Who holds which mutex is kept here, since it
 * decides who can run; mutex.c models the calls themselves. Nobody able to
 * run while some thread has not finished is a deadlock.
 */
#include "world.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* This file's part of the schedule's world, through the one pointer (world.h). */
static inline thread_state *st(void) { return &world->thread; }
static _Thread_local int t_self = EXPLORE_MAIN; /* per thread: which scenario thread it is */

int thread_self(void) { return t_self; }
int explore_self(void) { return t_self; }
int thread_count(void) { return st()->nthreads; }
const char *thread_name(int i) { return st()->threads[i].name; }
bool thread_running(void) { return st()->in_schedule; }

/* ---- mutex ownership ---------------------------------------------------- */

static held *held_of(pthread_mutex_t *m)
{
    for (int i = 0; i < st()->nheld; ++i)
        if (st()->held[i].m == m)
            return &st()->held[i];
    return NULL;
}

void thread_hold(pthread_mutex_t *m, int owner, int lock_event)
{
    if (st()->nheld == 16)
        explore_fail("explorer", "more than 16 mutexes held at once");
    st()->held[st()->nheld++] = (held){m, owner, lock_event};
}

void thread_release(pthread_mutex_t *m)
{
    held *h = held_of(m);
    if (h)
        *h = st()->held[--st()->nheld];
}

/* ---- who can run ---------------------------------------------------------- */

/* The scenario's predicate runs on whichever thread decides: its reads are
 * the explorer's, not the program's. */
static bool until_holds(const xthread *t)
{
    datarace_quiet(true);
    path_footprint_pause(true);
    bool ok = t->until(t->until_arg);
    path_footprint_pause(false);
    datarace_quiet(false);
    return ok;
}

static bool runnable(const xthread *t)
{
    return t->arrived && !t->done && !t->waits && !(t->wants && held_of(t->wants)) && !(t->until && !until_holds(t));
}

/* Records the deadlock (fail.c) without unwinding: the deciding thread holds
 * st()->mx, and decide() hands the turn to main, which unwinds. */
static void deadlock(void)
{
    char why[256];
    size_t len = 0;
    why[0] = '\0';
    for (int i = 0; i < st()->nthreads && len < sizeof why; ++i) {
        const xthread *t = &st()->threads[i];
        if (t->done)
            continue;
        if (t->waits)
            len += (size_t)snprintf(why + len, sizeof why - len, " T%d waits on a condition variable nobody signals;", i);
        else if (t->wants) {
            const held *h = held_of(t->wants);
            len += (size_t)snprintf(why + len, sizeof why - len, " T%d wants a mutex held by T%d;", i, h->owner);
            if (h->lock_event >= 0) {
                fail_blame(event_at(h->lock_event));
                event *w = event_silent(EV_NOTE, i, NULL);
                snprintf(w->text, sizeof w->text, "deadlock: waits for the mutex T%d locked at line %d", h->owner,
                         event_at(h->lock_event)->line);
                fail_blame(w);
            }
        } else if (t->until)
            len += (size_t)snprintf(why + len, sizeof why - len, " T%d waits until %s;", i, t->until_what);
    }
    fail_record("deadlock", "nobody can run, and not every thread has finished:%s", why);
}

/* Picks who runs next and wakes it. Called with st()->mx held by the thread that
 * just reached a point or ended (current), or by main at the start. */
static void decide(int current)
{
    if (fail_pending()) { /* after a failure only main runs again: it unwinds to run.c, which reports */
        st()->running = EXPLORE_MAIN;
        pthread_cond_broadcast(&st()->cv);
        return;
    }
    unsigned enabled = 0, waiting = 0;
    bool all_done = true;
    for (int i = 0; i < st()->nthreads; ++i) {
        all_done &= st()->threads[i].done;
        if (runnable(&st()->threads[i]))
            enabled |= 1u << i;
        if (st()->threads[i].arrived && !st()->threads[i].done)
            waiting |= 1u << i;
    }
    if (!enabled && !all_done)
        deadlock();
    int choice = EXPLORE_MAIN;
    if (enabled) {
        step steps[EXPLORE_MAX_THREADS];
        for (int i = 0; i < st()->nthreads; ++i)
            steps[i] = st()->threads[i].next;
        choice = path_schedule(enabled, waiting, current, steps, event_count());
        if (choice < 0)
            fail_record("explorer", "%s", path_error());
    }
    st()->running = fail_pending() ? EXPLORE_MAIN : choice; /* a deadlock or a search error just recorded */
    pthread_cond_broadcast(&st()->cv);
}

/* ---- the scheduling points ------------------------------------------------ */

void thread_wait_turn(int self, step next)
{
    pthread_mutex_lock(&st()->mx);
    st()->threads[self].arrived = true;
    st()->threads[self].next = next;
    if (next.kind == STEP_SYNC && st()->threads[self].wants)
        st()->threads[self].next.reads = true; /* it locks the mutex (path.c's races) */
    decide(self);
    while (st()->running != self)
        pthread_cond_wait(&st()->cv, &st()->mx);
    st()->threads[self].arrived = false;
    pthread_mutex_unlock(&st()->mx);
}

void thread_wants(int self, pthread_mutex_t *m) { st()->threads[self].wants = m; }

void thread_waits(int self, pthread_cond_t *c, pthread_mutex_t *m)
{
    pthread_mutex_lock(&st()->mx);
    st()->threads[self].waits = c;
    st()->threads[self].wants = m;
    pthread_mutex_unlock(&st()->mx);
}

int thread_wake(pthread_cond_t *c, bool all)
{
    int woken = 0;
    pthread_mutex_lock(&st()->mx);
    for (int i = 0; i < st()->nthreads && (all || !woken); ++i)
        if (st()->threads[i].waits == c) {
            st()->threads[i].waits = NULL;
            ++woken;
        }
    pthread_mutex_unlock(&st()->mx);
    return woken;
}

void explore_wait_until(bool (*ready)(void *arg), void *arg, const char *what)
{
    if (t_self == EXPLORE_MAIN)
        return;
    st()->threads[t_self].until = ready;
    st()->threads[t_self].until_arg = arg;
    st()->threads[t_self].until_what = what;
    thread_wait_turn(t_self, (step){.kind = STEP_ANY});
    st()->threads[t_self].until = NULL;
    event_note(t_self, "(waited until %s)", what);
}

/* ---- one run's threads ------------------------------------------------------ */

static void *thread_main(void *arg)
{
    int self = (int)(intptr_t)arg;
    t_self = self;
    pthread_mutex_lock(&st()->mx);
    ++st()->arrived_at_start;
    st()->threads[self].arrived = true;
    pthread_cond_broadcast(&st()->cv);
    while (st()->running != self)
        pthread_cond_wait(&st()->cv, &st()->mx);
    st()->threads[self].arrived = false;
    pthread_mutex_unlock(&st()->mx);

    /* A failure on this thread (explore_fail) unwinds to here: the thread
     * ends, and main, which decide() hands the turn to, reports it. */
    jmp_buf unwind;
    if (!setjmp(unwind)) {
        fail_catch(&unwind);
        st()->threads[self].fn(st()->threads[self].ctx);
    }
    fail_catch(NULL);

    pthread_mutex_lock(&st()->mx);
    st()->threads[self].done = true;
    if (!fail_pending())
        event_note(self, "(finished)");
    decide(self);
    pthread_mutex_unlock(&st()->mx);
    return NULL;
}

void thread_setup(const explore_scenario *s, void *ctx)
{
    st()->in_schedule = true;
    st()->nheld = 0;
    st()->nthreads = s->nthreads;
    for (int i = 0; i < s->nthreads; ++i)
        st()->threads[i] = (xthread){.fn = s->threads[i], .ctx = ctx, .name = s->thread_names[i], .next = {.kind = STEP_LOCAL, .scenario = true}};
}

void thread_run_all(void)
{
    st()->arrived_at_start = 0;
    st()->running = EXPLORE_MAIN;
    for (int i = 0; i < st()->nthreads; ++i)
        clock_thread_start(i);
    for (int i = 0; i < st()->nthreads; ++i)
        if (pthread_create(&st()->threads[i].pt, NULL, thread_main, (void *)(intptr_t)i) != 0) {
            fputs("explore: pthread_create failed\n", stderr);
            exit(2);
        }
    pthread_mutex_lock(&st()->mx);
    while (st()->arrived_at_start < st()->nthreads)
        pthread_cond_wait(&st()->cv, &st()->mx);
    decide(EXPLORE_MAIN); /* every thread waits at its start: the first decision */
    while (st()->running != EXPLORE_MAIN)
        pthread_cond_wait(&st()->cv, &st()->mx);
    pthread_mutex_unlock(&st()->mx);
    if (fail_pending()) /* the other threads stay parked at their turns: the process ends */
        fail_unwind();
    for (int i = 0; i < st()->nthreads; ++i) {
        pthread_join(st()->threads[i].pt, NULL);
        clock_thread_join(i);
    }
}

void thread_end_schedule(void) { st()->in_schedule = false; }

/* A line in the calling thread's column of the trace (what the scenario does). */
void explore_note(const char *fmt, ...)
{
    event *e = event_new(EV_NOTE, thread_self(), NULL);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
}
