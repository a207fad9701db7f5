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
 * variable's signal orders nothing by itself; its mutex does. Not
 * modelled: spurious wake-ups, and which waiter a signal wakes (the first).
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

/* Waiting releases the mutex and makes the thread unrunnable until a
 * signal; then it is runnable again once it can relock. */
int explore_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, const explore_site *site)
{
    int self = thread_self();
    if (self == EXPLORE_MAIN)
        return pthread_cond_wait(c, m);
    thread_wait_turn(self, on(m, c));
    thread_release(m);
    clock_mutex_unlock(self, m); /* waiting unlocks the mutex... */
    pthread_mutex_unlock(m);
    log_call(EV_WAIT, self, site, c);
    thread_waits(self, c, m);
    thread_wait_turn(self, on(m, c));
    thread_wants(self, NULL);
    event *e = log_call(EV_WOKEN, self, site, c);
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
    e->woken = thread_wake(c, all);
    return 0;
}

int explore_cond_signal(pthread_cond_t *c, const explore_site *site) { return wake(c, false, site); }
int explore_cond_broadcast(pthread_cond_t *c, const explore_site *site) { return wake(c, true, site); }
