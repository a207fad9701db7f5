/*
 * Mutexes and condition variables, modelled cooperatively.
 *
 * A thread whose lock would block is simply not runnable until the unlock
 * (thread.c keeps who holds what); a thread in pthread_cond_wait is not
 * runnable until signalled, and then until it can relock. The real mutex
 * is also locked, but only ever when the model says it is free.
 *
 * What they order (5.1.2.4p6-7 for C11's mutexes; POSIX says the same of
 * pthread_mutex_t, XBD 4.12 "Memory Synchronization"): an unlock
 * synchronizes with the next lock of the same mutex (clock.c). A condition
 * variable's signal orders nothing by itself; its mutex does.
 *
 * What POSIX leaves open is explored, as the search's choices (path.c):
 *
 *   - pthread_cond_signal "shall unblock at least one of the threads that
 *     are blocked" (XSH pthread_cond_signal): which one is a choice, every
 *     waiter tried;
 *   - "spurious wakeups from the pthread_cond_wait() functions may occur"
 *     (XSH pthread_cond_wait): a wait may end with no signal. A waiter
 *     that may wake spuriously is runnable, signalled or not, once
 *     another thread has unlocked the mutex since it began to wait
 *     (thread.c), and the scheduler decides when, or whether, it goes on:
 *     run before the signal, it woke spuriously. Code that waits
 *     correctly waits in a loop on a predicate the mutex protects, and
 *     survives it. Two rules keep the search finite, each losing no
 *     behaviour of such code. Before another thread has held the mutex,
 *     the predicate is as the waiter left it: it would only wait again.
 *     And once per wait site and thread in a schedule, as a weak
 *     compare-exchange fails spuriously (point.c): a second spurious
 *     wake-up there only repeats the first at a later moment, which the
 *     first one reaches by being scheduled then (GenMC prunes a loop
 *     iteration that changes nothing in the same way, as a blocked
 *     assume); without it two workers' wait loops could wake each other
 *     for ever. Off with LOCKSTEP_EXPLORE_SPURIOUS_WAKEUPS=0 (options.c).
 *
 * On the main thread (setup and checks) the calls are the real ones.
 */
#include "model.h"

/* Logs the call as an event of the calling thread. */
static event *log_call(enum event_kind kind, int self, const explore_site *site, const void *obj)
{
    event *e = event_new(kind, self, site);
    e->obj = obj;
    return e;
}

/* Every mutex and condition call is a step on the objects it reads or
 * changes (step.c): the mutex m, whose holder decides who can lock it, and
 * the condition variable c, whose waiters decide whom a signal wakes. A
 * wait is two steps, each on both: the first unlocks m and joins c's
 * waiters, the second (once signalled) relocks m. `scenario`, as every
 * step not run yet: it may touch the scenario's bookkeeping (the search
 * knows once it has run). */
static step on(const pthread_mutex_t *m, const pthread_cond_t *c)
{
    return (step){.kind = STEP_SYNC, .obj = m, .cond = c, .scenario = true};
}

static void check(int self, const void *m, const explore_site *site, const char *verb)
{
    alloc_check_use(self, m, verb, site, "in");
}

int explore_mutex_lock(pthread_mutex_t *m, const explore_site *site)
{
    int self = thread_self();
    if (self == EXPLORE_MAIN) {
        clock_mutex_lock(self, m);
        return pthread_mutex_lock(m);
    }
    thread_wants(self, m);
    thread_wait_turn(self, on(m, NULL)); /* runnable only once m is free */
    thread_wants(self, NULL);
    check(self, m, site, "locks the mutex at");
    event *e = log_call(EV_LOCK, self, site, m);
    thread_hold(m, self, event_index(e));
    clock_mutex_lock(self, m);
    return pthread_mutex_lock(m);
}

int explore_mutex_unlock(pthread_mutex_t *m, const explore_site *site)
{
    int self = thread_self();
    if (self == EXPLORE_MAIN) {
        clock_mutex_unlock(self, m);
        return pthread_mutex_unlock(m);
    }
    thread_wait_turn(self, on(m, NULL));
    check(self, m, site, "unlocks the mutex at");
    thread_release(m);
    clock_mutex_unlock(self, m);
    log_call(EV_UNLOCK, self, site, m);
    return pthread_mutex_unlock(m);
}

/* Whether this wait may end spuriously: the option is on, and this
 * thread has not woken spuriously at this site in this schedule. */
static bool may_wake_spuriously(int self, const explore_site *site)
{
    if (!point_spurious_wakeups())
        return false;
    for (int i = event_count() - 1; i >= 0; --i) {
        const event *x = event_at(i);
        if (x->kind == EV_WOKEN && x->spurious && x->site == site && x->thread == self)
            return false;
    }
    return true;
}

/* Waiting releases the mutex and makes the thread unrunnable until a
 * signal, or, if it may wake spuriously, until another thread unlocks the
 * mutex (thread.c); then it is runnable again once it can relock. */
int explore_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, const explore_site *site)
{
    int self = thread_self();
    if (self == EXPLORE_MAIN)
        return pthread_cond_wait(c, m);
    thread_wait_turn(self, on(m, c));
    thread_release(m);
    clock_mutex_unlock(self, m); /* waiting unlocks the mutex... */
    pthread_mutex_unlock(m);
    event *wait = log_call(EV_WAIT, self, site, c);
    thread_waits(self, c, m, may_wake_spuriously(self, site) ? event_index(wait) : -1);
    thread_wait_turn(self, on(m, c));
    bool spurious = thread_still_waits(self); /* it went on with no signal */
    thread_wake(self);
    thread_wants(self, NULL);
    event *e = log_call(EV_WOKEN, self, site, c);
    e->spurious = spurious;
    thread_hold(m, self, event_index(e));
    clock_mutex_lock(self, m); /* ...and relocks it: the signal itself orders nothing (POSIX), the mutex does */
    return pthread_mutex_lock(m);
}

static int wake(pthread_cond_t *c, bool all, const explore_site *site)
{
    int self = thread_self();
    if (self == EXPLORE_MAIN)
        return all ? pthread_cond_broadcast(c) : pthread_cond_signal(c);
    thread_wait_turn(self, on(NULL, c));
    event *e = log_call(all ? EV_BROADCAST : EV_SIGNAL, self, site, c);
    unsigned waiters = thread_waiters(c);
    if (!all && (waiters & (waiters - 1))) { /* two or more: which one wakes is the search's choice */
        int chosen = path_choose(waiters, self);
        if (chosen < 0)
            explore_fail("explorer", "%s", path_error());
        waiters = 1u << chosen;
    } else if (!all && waiters) {
        waiters &= -waiters;
    }
    for (unsigned w = waiters; w; w &= w - 1)
        thread_wake(__builtin_ctz(w));
    e->woken = waiters;
    return 0;
}

int explore_cond_signal(pthread_cond_t *c, const explore_site *site) { return wake(c, false, site); }
int explore_cond_broadcast(pthread_cond_t *c, const explore_site *site) { return wake(c, true, site); }
