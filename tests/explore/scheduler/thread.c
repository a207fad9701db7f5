/*
 * Threads and turns: coroutines, one at a time, on the explorer's own
 * thread.
 *
 * Each scenario thread is a coroutine (a context and a stack of its own,
 * ucontext), and so is the main thread, which runs the scenario's setup
 * and checks. A scenario thread stops at every scheduling point (hook.h);
 * the thread that is running decides who goes next when it reaches its
 * next point (or ends), and switches to it: passing the turn is a function
 * call (swapcontext), not a hand-off between OS threads, so exactly one
 * thread runs at any moment by construction. Where two or more could go,
 * the choice is a decision of the search (path.c).
 *
 * What is per thread and lives outside the world goes with the turn
 * (switch_to): where a failure unwinds to (fail.c), how quiet the race
 * check is (datarace.c), and the code under test's own thread-locals. A
 * step's `_Thread_local` (the sequencer's run queue) is, under the
 * explorer, a plain static in the section explore_tls (hook.h): one copy,
 * which the leaving thread's bytes are saved from and the next thread's
 * restored to, as a kernel saves registers. Each thread starts with the
 * section as the program did. Its accesses are no data races (each thread
 * has its own copy) and no dependence of the search (tsan.c asks
 * thread_local_memory).
 *
 * A thread that has arrived at a point may still be unable to go: its next
 * operation locks a mutex another thread holds, it waits on a condition
 * variable nobody has signalled, or it waits until a scenario's predicate
 * holds (explore_wait_until). Who holds which mutex is kept here, since it
 * decides who can run; mutex.c models the calls themselves. Nobody able to
 * run while some thread has not finished is a deadlock.
 *
 * The stacks and the switch between them are context.c's (ucontext; in a
 * browser, Emscripten's fibers; AddressSanitizer told of each switch).
 */
#include "scheduler/part.h"
#include "scheduler/context.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* This file's part of the schedule's world, through its layer's (scheduler/part.h). */
static inline thread_state *st(void) { return &scheduler_now()->thread; }

int thread_self(void) { return st()->current; }
int explore_self(void) { return st()->current; }
int thread_count(void) { return st()->nthreads; }
const char *thread_name(int i) { return st()->threads[i].name; }
bool thread_running(void) { return st()->in_schedule; }

/* ---- the coroutines ------------------------------------------------------- */

struct coroutine {
    context *context;     /* its stack and registers (context.c) */
    jmp_buf *unwind;      /* fail.c's catch while another thread runs */
    int quiet;            /* datarace.c's quiet level, likewise */
    unsigned char *tls;   /* the step's thread-locals, likewise */
};

/* The step's thread-locals (hook.h puts them in this section); this file
 * puts a byte there too, so that the section, and its bounds, exist in
 * every binary. */
#ifdef __APPLE__
#define EXPLORE_TLS_SECTION "__DATA,explore_tls"
extern unsigned char tls_start[] __asm("section$start$__DATA$explore_tls");
extern unsigned char tls_stop[] __asm("section$end$__DATA$explore_tls");
#else /* weak: WebAssembly's linker makes no bounds of a section (Emscripten: a build without thread-locals) */
#define EXPLORE_TLS_SECTION "explore_tls"
extern unsigned char __start_explore_tls[] __attribute__((weak));
extern unsigned char __stop_explore_tls[] __attribute__((weak));
#define tls_start __start_explore_tls
#define tls_stop __stop_explore_tls
#endif
__attribute__((used, section(EXPLORE_TLS_SECTION))) static unsigned char tls_anchor;

static size_t tls_size(void) { return (size_t)(tls_stop - tls_start); }

bool thread_local_memory(const volatile void *p)
{
    const volatile unsigned char *c = p;
    return c >= tls_start && c < tls_stop;
}

static struct coroutine *coroutine_of(int thread)
{
    struct coroutine **slot = &st()->coroutines[thread];
    if (*slot)
        return *slot;
    struct coroutine *c = calloc(1, sizeof *c);
    unsigned char *tls = malloc(tls_size());
    if (!c || !tls) {
        fputs("explore: no memory for a thread\n", stderr);
        exit(2);
    }
    c->tls = tls;
    c->context = context_new(thread == EXPLORE_MAIN);
    return *slot = c;
}

/* Hands the CPU from the running thread to `next`, carrying the per-thread
 * state across; returns when some thread hands it back (never, for_good:
 * the running thread has finished). */
static void switch_to(int next, bool for_good)
{
    int self = st()->current;
    if (next == self)
        return;
    struct coroutine *from = coroutine_of(self), *to = coroutine_of(next);
    from->unwind = fail_catching();
    from->quiet = datarace_quiet_level();
    memcpy(from->tls, tls_start, tls_size());
    fail_catch(to->unwind);
    datarace_set_quiet_level(to->quiet);
    memcpy(tls_start, to->tls, tls_size());
    st()->current = next;
    context_switch(from->context, to->context, for_good);
}

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

/* A waiter that may wake spuriously can go on, signalled or not, once
 * another thread has unlocked its mutex since it began to wait: before,
 * the predicate that mutex guards is as it left it (mutex.c). */
static bool may_go_unsignalled(const xthread *t)
{
    if (t->spurious_from < 0)
        return false;
    int self = (int)(t - st()->threads);
    for (int i = event_count() - 1; i > t->spurious_from; --i) {
        const event *e = event_at(i);
        if (e->kind == EV_UNLOCK && e->obj == t->wants && e->thread != self)
            return true;
    }
    return false;
}

static bool runnable(const xthread *t)
{
    return t->arrived && !t->done && !(t->waits && !may_go_unsignalled(t)) && !(t->wants && held_of(t->wants)) &&
           !(t->joins && !st()->threads[t->joins - 1].done) && !(t->until && !until_holds(t));
}

/* Records the deadlock (fail.c) without unwinding: decide() hands the
 * turn to main, which unwinds. */
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
        else if (t->joins)
            len += (size_t)snprintf(why + len, sizeof why - len, " T%d joins T%d, which has not finished;", i,
                                    t->joins - 1);
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

/* Picks who runs next (st()->running); the caller switches to it. Called
 * by the thread that just reached a point or ended (current), or by main
 * at the start. */
static void decide(int current)
{
    if (fail_pending()) { /* after a failure only main runs again: it unwinds to run.c, which reports */
        st()->running = EXPLORE_MAIN;
        return;
    }
    unsigned enabled = 0, waiting = 0, unsignalled = 0;
    bool all_done = true;
    for (int i = 0; i < st()->nthreads; ++i) {
        all_done &= st()->threads[i].done;
        if (runnable(&st()->threads[i])) {
            enabled |= 1u << i;
            if (st()->threads[i].waits)
                unsignalled |= 1u << i;
        }
        if (st()->threads[i].arrived && !st()->threads[i].done)
            waiting |= 1u << i;
    }
    /* Nobody can run but by a spurious wake-up: POSIX allows one and
     * promises none, so the execution in which none comes is stuck. */
    if (enabled == unsignalled && !all_done)
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
}

/* ---- the scheduling points ------------------------------------------------ */

void thread_wait_turn(int self, step next)
{
    st()->threads[self].arrived = true;
    st()->threads[self].next = next;
    if (next.kind == STEP_SYNC && st()->threads[self].wants)
        st()->threads[self].next.reads = true; /* it locks the mutex (path.c's races) */
    decide(self);
    switch_to(st()->running, false); /* back here when a decision names self again */
    st()->threads[self].arrived = false;
}

void thread_wants(int self, pthread_mutex_t *m) { st()->threads[self].wants = m; }

void thread_waits(int self, pthread_cond_t *c, pthread_mutex_t *m, int spurious_from)
{
    st()->threads[self].waits = c;
    st()->threads[self].wants = m;
    st()->threads[self].spurious_from = spurious_from;
}

bool thread_still_waits(int self) { return st()->threads[self].waits != NULL; }

unsigned thread_waiters(const pthread_cond_t *c)
{
    unsigned waiters = 0;
    for (int i = 0; i < st()->nthreads; ++i)
        if (st()->threads[i].waits == c)
            waiters |= 1u << i;
    return waiters;
}

void thread_wake(int thread) { st()->threads[thread].waits = NULL; }

void explore_wait_until(bool (*ready)(void *arg), void *arg, const char *what)
{
    int self = st()->current;
    if (self == EXPLORE_MAIN)
        return;
    st()->threads[self].until = ready;
    st()->threads[self].until_arg = arg;
    st()->threads[self].until_what = what;
    thread_wait_turn(self, (step){.kind = STEP_ANY});
    st()->threads[self].until = NULL;
    event_note(self, "(waited until %s)", what);
}

/* ---- one run's threads ------------------------------------------------------ */

/* A scenario thread's coroutine, from its first turn to its end. It never
 * returns: its last decision hands the CPU on, and nothing switches back
 * to a thread that has finished (the next schedule starts it afresh). */
static void thread_main(void)
{
    int self = st()->current;
    st()->threads[self].arrived = false;

    /* A failure on this thread (explore_fail) unwinds to here: the thread
     * ends, and main, which decide() hands the turn to, reports it. */
    jmp_buf unwind;
    if (!setjmp(unwind)) {
        fail_catch(&unwind);
        xthread *t = &st()->threads[self];
        if (t->start)
            t->result = t->start(t->ctx);
        else
            t->fn(t->ctx);
    }
    fail_catch(NULL);

    st()->threads[self].done = true;
    if (!fail_pending())
        event_note(self, "(finished)");
    decide(self);
    switch_to(st()->running, true);
    fputs("explore: a finished thread was resumed\n", stderr); /* unreachable: decide() never names it */
    abort();
}

void thread_setup(const explore_scenario *s, void *ctx)
{
    st()->in_schedule = true;
    st()->nheld = 0;
    st()->nthreads = s->nthreads;
    st()->names = s->thread_names;
    st()->current = EXPLORE_MAIN;
    for (int i = 0; i < s->nthreads; ++i)
        st()->threads[i] = (xthread){.fn = s->threads[i], .ctx = ctx, .name = s->thread_names[i], .next = {.kind = STEP_LOCAL, .scenario = true}};
    if (!st()->tls_pristine) { /* the first schedule: the thread-locals as the program left them, before any ran */
        st()->tls_pristine = malloc(tls_size());
        if (!st()->tls_pristine) {
            fputs("explore: no memory for the thread-locals\n", stderr);
            exit(2);
        }
        memcpy(st()->tls_pristine, tls_start, tls_size());
    }
}

/* Makes thread i's coroutine start at thread_main, on its own stack, with
 * the thread-locals a new thread gets. */
static void start(int i)
{
    struct coroutine *c = coroutine_of(i);
    context_start(c->context, thread_main);
    c->unwind = NULL;
    c->quiet = 0;
    memcpy(c->tls, st()->tls_pristine, tls_size());
    st()->threads[i].arrived = true; /* every thread waits at its start for its first turn */
}

void thread_run_all(void)
{
    st()->running = EXPLORE_MAIN;
    for (int i = 0; i < st()->nthreads; ++i) {
        clock_thread_start(i, EXPLORE_MAIN);
        start(i);
    }
    decide(EXPLORE_MAIN); /* the first decision */
    switch_to(st()->running, false); /* back here when every thread finished, or a failure */
    if (fail_pending()) /* the other threads stay where they are: the process ends */
        fail_unwind();
    for (int i = 0; i < st()->nthreads; ++i)
        clock_thread_join(EXPLORE_MAIN, i);
}

void thread_end_schedule(void) { st()->in_schedule = false; }

/* ---- threads the code under test creates ------------------------------------ */

/* pthread_create on a scenario thread (the executor's workers): a thread
 * of the schedule like the scenario's own, numbered after them, and named
 * by the scenario's thread_names if it gives the slot a name. Creating it
 * is part of the creator's running step, which happens before everything
 * the new thread does (7.26.5.1p2; clock.c, path_spawn); it waits at its
 * start for its first turn, as the scenario's threads do. Main creates no
 * thread: its setup runs before the threads start, and its checks after
 * every thread has finished, so nothing could join one. */
int explore_thread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start_routine)(void *), void *arg,
                          const explore_site *site)
{
    (void)attr; /* a stack size or a scheduling policy: nothing the model has */
    int self = thread_self();
    if (self == EXPLORE_MAIN)
        explore_fail("explorer", "pthread_create at %s:%d on the main thread: create threads on a scenario thread, "
                     "which can also join them", site->file, site->line);
    if (st()->nthreads == EXPLORE_MAX_THREADS)
        explore_fail("explorer", "pthread_create at %s:%d: a schedule has at most %d threads", site->file,
                     site->line, EXPLORE_MAX_THREADS);
    int i = st()->nthreads++;
    const char *name = st()->names[i] ? st()->names[i] : "created thread";
    st()->threads[i] = (xthread){.start = start_routine, .ctx = arg, .name = name,
                                 .next = {.kind = STEP_LOCAL, .scenario = true}};
    clock_thread_start(i, self);
    path_spawn(i, self);
    start(i);
    event_note(self, "pthread_create: T%d %s starts", i, name);
    *thread = (pthread_t)(uintptr_t)(i + 1); /* the id is ours: the code under test only passes it to pthread_join */
    return 0;
}

/* pthread_join: the joiner cannot go on until the thread has finished; its
 * step, on an object no other step touches, comes after every step of the
 * joined thread (7.26.5.6p2; clock.c, path_join). */
int explore_thread_join(pthread_t thread, void **result, const explore_site *site)
{
    int self = thread_self(), i = (int)(uintptr_t)thread - 1;
    if (self == EXPLORE_MAIN || i < 0 || i >= st()->nthreads || i == self)
        explore_fail("explorer", "pthread_join at %s:%d of a thread this schedule did not create, or of itself",
                     site->file, site->line);
    st()->threads[self].joins = i + 1;
    thread_wait_turn(self, (step){.kind = STEP_SYNC, .obj = &st()->threads[i], .scenario = true});
    st()->threads[self].joins = 0;
    path_join(self, i);
    clock_thread_join(self, i);
    event_note(self, "pthread_join: T%d %s has finished", i, st()->threads[i].name);
    if (result)
        *result = st()->threads[i].result;
    return 0;
}

/* A line in the calling thread's column of the trace (what the scenario does). */
void explore_note(const char *fmt, ...)
{
    event *e = event_new(EV_NOTE, thread_self(), NULL);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
}
