/*
 * What the explorer's files share (not for scenarios): the types that pass
 * between them, and each file's entry points, in the order the README's
 * "How it works" reads them.
 *
 * The calls go one way. The hook's entry points (point.c, mutex.c, alloc.c,
 * tsan.c) take an operation's context from hook.h as a value, wait for the
 * thread's turn (thread.c), ask the search for a decision when there is
 * one (path.c), and then hand the operation to the model (clock.c,
 * location.c, datarace.c), which returns what happened as an event
 * (event.c). The trace and the graph format events; they call nothing of
 * the model's. The model never calls back into the search: a load's choice
 * of store is asked for by point.c, which passes the answer in.
 *
 * References are to the C11 standard, N1570 numbering: 5.1.2.4 is
 * "Multi-threaded executions and data races", 7.17.3 "Order and
 * consistency".
 */
#ifndef LOCKSTEP_EXPLORE_MODEL_H
#define LOCKSTEP_EXPLORE_MODEL_H

#include "explore.h"

#include <setjmp.h>
#include <stdint.h>

/* Threads are numbered 0..EXPLORE_MAX_THREADS-1, and the main thread
 * (setup and checks), which starts them and joins them, is EXPLORE_MAIN:
 * one index space, so a vector clock has a slot per thread. */
#define THREADS (EXPLORE_MAX_THREADS + 1)

/* ---- order.c: memory orders as values (their names: explore.h) ---------- */

bool order_acquires(int order);
bool order_releases(int order);
bool order_weaker(int weaker, int than); /* strictly weaker: fewer of the acquire and release halves */

/* ---- names.c: naming what a trace shows ---------------------------------- */

const char *base_name(const char *path); /* "steps/03/src/task.c" -> "task.c"; "" for NULL */
/* "task.c:70 (p->m_holder = result;)": a plain access's return address,
 * through addr2line, with the line's text. */
void name_code_address(const void *pc, char *buf, size_t size);
bool name_code_line(const void *pc, char *file, size_t size, int *line); /* addr2line's answer */
/* "task.c:70 (p->m_holder = result;)" for a site the hook named. */
void name_site(const char *file, int line, char *buf, size_t size);
const char *name_field(const char *objtext, char *buf, size_t size); /* "&p->m_waiting" -> "m_waiting" */
bool name_is_coro(const volatile void *addr);
void name_value(const char *field, const volatile void *obj, uintptr_t v, char *buf, size_t size);
void name_memory(uintptr_t addr, char *buf, size_t size); /* "'driver' (byte 16 of its block)" */
const char *name_thread(int thread, char *buf, size_t size); /* "T1 awaiter", "main" */
void names_reset(void);
void names_set_threads(const explore_scenario *s); /* name_thread's names: the scenario's */
bool names_of_fields(void); /* explore_name_fields() was called */

/* The vector clock of happens-before (clock.c), which events carry. */
typedef struct vclock {
    uint32_t c[THREADS]; /* c[u]: how much of thread u's history happens before */
} vclock;

/* ---- event.c: what each step of a schedule did --------------------------- */

enum event_kind {
    EV_NOTE,      /* text: what the scenario does, a wait, "(finished)" */
    EV_ATOMIC,    /* an atomic operation (location.c fills it) */
    EV_INIT,      /* atomic_init: not a trace line; a plain write (datarace.c), a location's first store */
    EV_ALLOC,     /* block, size; failed: an injected failure */
    EV_FREE,      /* block */
    EV_USE,       /* a use of a freed block: the failure's own event */
    EV_PLAIN,     /* a plain access in a data race: not a trace line */
    EV_LOCK, EV_UNLOCK, EV_WAIT, EV_WOKEN, EV_SIGNAL, EV_BROADCAST,
    EV_RESUME,    /* the step's own lockstep_coro_resume: not a trace line */
    EV_FENCE,     /* atomic_thread_fence (fence.c): order, text */
};

enum atomic_op { OP_LOAD, OP_STORE, OP_RMW, OP_CAS };

typedef struct event {
    enum event_kind kind;
    int thread;
    const explore_site *site;   /* where in the source, when the hook knows it */
    int line;                   /* its trace line (1-based), 0: not a trace line */
    int after;                  /* not a trace line: how long the trace was when it happened */
    char text[200];             /* EV_NOTE, EV_USE, EV_PLAIN: what it says */
    /* EV_ATOMIC */
    enum atomic_op op;
    enum explore_rmw rmw;
    int order;                  /* the order it ran with */
    int written;                /* the order the source wrote: differs only under --weaken */
    const volatile void *obj;   /* also: the block of an allocation, free or use; the mutex; the coroutine */
    uintptr_t stored;           /* a store's value, a fetch_*'s operand */
    uintptr_t expected;         /* a compare-exchange's */
    uintptr_t read;             /* what it read (took out) */
    bool ok;                    /* a compare-exchange succeeded (it stored) */
    bool weak;                  /* a weak compare-exchange that may still fail spuriously */
    bool spurious;              /* it failed spuriously: it read the value it expected */
    bool plain;                 /* it stands for a non-atomic access (explore_atomic_op.plain) */
    bool stores;                /* it made a store */
    int reads_from;             /* the event whose store it read; -1: the initial value */
    int newest;                 /* the newest store's event when it read; -1: the initial value */
    bool stale;                 /* it read an older store than the newest (C11 allows it) */
    int before;                 /* its store went before this store's event in modification order; -1: last */
    bool synchronizes;          /* an acquire that joined the clock of a release it read */
    uint32_t epoch;             /* its thread's epoch (clock.c) */
    vclock clock;               /* its thread's clock when it ran: what happens before it (psc.c) */
    uint32_t rs_head[THREADS];  /* its store: of each thread, the epoch of the release heading its sequence */
    /* EV_ALLOC, EV_FREE */
    size_t size;
    bool failed;                /* an injected allocation failure */
    int depth;                  /* EV_RESUME: how deep the step's resumes nest */
    unsigned woken;             /* EV_SIGNAL, EV_BROADCAST: the threads it woke, a bit each */
} event;

/* The events one schedule logs at most (event.c); past it, the trace says
 * it was cut short. A per-event table of the report (trace.c, graph.c) has
 * this many rows. */
#define MAX_EVENTS 4096

void events_reset(void);
event *event_new(enum event_kind kind, int thread, const explore_site *site);    /* a trace line; never NULL */
event *event_silent(enum event_kind kind, int thread, const explore_site *site); /* not a trace line */
bool events_truncated(void);
int event_count(void);
event *event_at(int i);
int event_index(const event *e);
int event_trace_lines(void); /* how many of the events so far are trace lines */
void event_note(int thread, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- clock.c: happens-before --------------------------------------------- */

void clock_reset(void);
const vclock *clock_of(int thread);
uint32_t clock_now(int thread); /* its own component: the epoch of its next access */
void clock_tick(int thread);    /* after a synchronizing operation */
void clock_join(int thread, const vclock *from);
void clock_vjoin(vclock *into, const vclock *from);
bool clock_hb(int u, uint32_t e, int thread); /* u's access at epoch e happens before thread's point */
void clock_mutex_unlock(int thread, const void *m);
void clock_mutex_lock(int thread, const void *m);
void clock_thread_start(int thread, int creator); /* pthread_create by creator */
void clock_thread_join(int joiner, int thread);   /* pthread_join of thread by joiner */

/* ---- location.c: atomic locations, coherence, release sequences ------------ */

void location_reset(void);
void location_set_model(bool c11); /* --model c11, when the search starts (run.c) */
void location_set_candidates(bool on); /* the candidate search (explore_options.candidates), when it starts */
/* How many ways operation e (e->op, ->thread, ->obj, ->order, ->expected
 * set) may go: which store it reads, where its store goes in modification
 * order; 1 if only the default (the newest store, the last place). */
int location_choices(const event *e, size_t size);
/* What choice c would do, without doing it (for psc.c). */
typedef struct location_choice {
    int reads_from; /* the store's event; -1 none or the initial value */
    int before;     /* its store would go just before this store's event; -1: last, or no store */
    bool ok;        /* a compare-exchange would succeed */
    vclock clock;   /* its thread's clock after it: what would happen before it */
} location_choice;
void location_choice_of(const event *e, size_t size, int c, location_choice *out);
/* The operation, going way c (0 the default); fills e in and returns what
 * it read. */
uintptr_t location_do(event *e, size_t size, int c);
int location_mo(const volatile void *obj, int *events, int max); /* mo as event indices, oldest first */
uintptr_t location_mem_read(const volatile void *p, size_t size);
void location_mem_write(volatile void *p, size_t size, uintptr_t v);
void location_init(event *init, size_t size); /* atomic_init: the location starts again, at init->stored */
void location_forget(const volatile void *addr, size_t size); /* a freed block's locations */

/* ---- fence.c: atomic_thread_fence --------------------------------------- */

void fence_reset(void);
const vclock *fence_released(int thread);             /* the clock of its last release fence (zero: none) */
void fence_saw(int thread, const vclock rs[THREADS]); /* a load read a store of these release sequences */
void fence_do(event *e);                               /* a fence event, its order decided (point.c) */

/* ---- psc.c: the seq_cst order (RC11's psc) ------------------------------ */

void psc_reset(void);
void psc_note(const event *e);   /* e ran: psc matters once a seq_cst event has */
bool psc_matters(const event *e); /* a choice of e could close a cycle in psc */
/* Whether e going way c keeps psc acyclic (RC11: acyclic(psc)). */
bool psc_allows(const event *e, const location_choice *c);

/* ---- datarace.c: the data-race check --------------------------------------- */

void datarace_reset(void (*on_race)(void *ctx, const char *what), void *ctx); /* on_race: the scenario's, or NULL to fail */
void datarace_plain(int thread, const volatile void *p, size_t size, bool write, const void *pc,
                    const explore_site *site); /* site: the program's own, or NULL (pc says where) */
void datarace_atomic(int thread, const event *e, size_t size, bool wrote);
void datarace_init(int thread, const event *init, size_t size);
void datarace_free(int thread, const volatile void *p, size_t size, const event *free_event);
void datarace_quiet(bool on); /* the scenario observing, not the program (explore_unchecked) */
bool datarace_is_quiet(void);
int datarace_quiet_level(void);           /* the running thread's (thread.c carries it across a switch) */
void datarace_set_quiet_level(int level);
bool datarace_settled(int thread, const volatile void *p, size_t size); /* every write happens before */
/* unordered.c: one sentence on why thread `from`'s access at epoch e is not
 * ordered before thread `to`'s current point. */
void unordered_explain(int from, uint32_t e, int to, char *buf, size_t size);

/* ---- weaken.c: --weaken FILE:LINE=ORDER ---------------------------------- */

/* Checks spec against the atomic operations the build contains: writes a
 * refusal into why and returns false if it names none, or no weaker order. */
const char *weaken_add(const char *spec, char *why, size_t size); /* NULL, or the refusal's name and why */
int weaken_order(const explore_site *site, int order); /* the order it runs with */
void weaken_args(char *buf, size_t size);             /* " --weaken ..." for the replay line */

/* ---- step.c: which steps commute ------------------------------------------ */

/* What a thread's next step touches: the operation it waits at. */
enum step_kind {
    STEP_ATOMIC, /* an atomic operation on obj */
    STEP_FENCE,  /* atomic_thread_fence: only its own thread's, unless seq_cst */
    STEP_SYNC,   /* a mutex or condition-variable call on obj (the mutex) and cond */
    STEP_LOCAL,  /* plain code only: a thread's start */
    STEP_ANY,    /* unknown: a wait on a scenario's predicate */
};
/* The plain memory a step read and wrote: byte ranges [lo, hi), exact
 * (so the same in every run, wherever the allocator put things), up to
 * FOOTPRINT_RANGES of each kind; past that, `all`: any memory. */
#define FOOTPRINT_RANGES 32
typedef struct byte_ranges {
    int n;
    bool all;
    struct { uintptr_t lo, hi; } r[FOOTPRINT_RANGES];
} byte_ranges;
typedef struct footprint {
    byte_ranges reads, writes;
} footprint;
typedef struct step {
    enum step_kind kind;
    const volatile void *obj; /* the atomic location; a mutex or condition call: the mutex (NULL: a signal) */
    const void *cond;         /* a condition wait, its relock, a signal or broadcast: the condition variable */
    bool writes; /* it may store (a read-modify-write or compare-exchange may) */
    bool reads;  /* it reads (a load, a read-modify-write, a compare-exchange); a mutex call: it locks (thread.c) */
    bool scenario; /* it touches the scenario's own bookkeeping (explore_unchecked); not run yet: it may */
    const footprint *foot; /* its plain accesses, once it has run (NULL: not known, any); judged where scenario is */
} step;
/* What running step `ran` does to a thread asleep before step `asleep`:
 * nothing, wakes it, or limits its read to stores made since it fell
 * asleep. free_mo: RC11's free modification order (step.c says why it
 * matters; not under --model c11). */
enum step_effect { STEP_KEEP, STEP_LIMIT, STEP_WAKE };
enum step_effect step_effect(const step *ran, const step *asleep, bool free_mo);

/* ---- path.c: the decision tree and schedule ids -------------------------- */

/* Decisions: `options` is a bit mask (the threads that can go, or the
 * ways an operation may go, bit 0 the default: the newest store). */
enum branch_kind { BRANCH_THREAD, BRANCH_READ };
/* Which of the enabled threads goes next (a decision if two or more can):
 * steps[t] is the next step of thread t, for the reduction, of every
 * thread in waiting (at a point, able to run or not; not finished).
 * -1: see path_error. */
int path_schedule(unsigned enabled, unsigned waiting, int current, const step *steps, int now);
/* The read choices of the operation about to run, given the stores'
 * events (reads_from[c] for choice c): a choice the reduction rules out
 * is never taken. Returns the choice, -1: see path_error. */
int path_read(unsigned options, int current, const int *reads_from);
/* Any other choice inside the running step, every option tried, none
 * ruled out (mutex.c: which waiter a signal wakes, a spurious wake-up).
 * Returns the choice, -1: see path_error. */
int path_choose(unsigned options, int current);
/* Thread `child` was created by `creator`'s running step (thread.c): its
 * steps come after that one. */
void path_spawn(int child, int creator);
/* The running step of `joiner` joined thread `child`: it comes after all
 * of child's steps. */
void path_join(int joiner, int child);
/* What the operation just chosen did, once it ran (a compare-exchange
 * that failed only read): its races are judged by it. */
void path_ran(const step *what);
void path_scenario_touched(void); /* the running step reads or writes the scenario's bookkeeping */
/* A plain access (or a free: a write of the block) by thread, added to
 * its running step's footprint; quiet: the scenario observing
 * (explore_unchecked), which makes the step bookkeeping. */
void path_touch(int thread, const volatile void *p, size_t size, bool write, bool quiet);
void path_footprint_pause(bool on); /* a scenario's predicate run by the scheduler: not a step's */
const char *path_error(void);
/* How a round searches: every interleaving; sleep sets alone (every thread
 * awake at every decision); or sleep sets and source sets (another thread
 * only where a race asks for it). The last two are sound only with no
 * bound (an equivalent schedule may cost more). */
enum search_kind { SEARCH_EVERY, SEARCH_SLEEP, SEARCH_SOURCE };
/* A round: every schedule within the bound, searched as kind says (step.c
 * says which steps commute). */
void path_begin_round(int bound, enum search_kind kind, bool free_mo);
bool path_reduced(void);   /* this round is reduced */
void path_begin_schedule(void);
bool path_next(void);      /* after a schedule: set up the next one; false when none is left */
bool path_pruned(void);    /* this round skipped a schedule for the bound */
int path_bound(void);
void path_id(char *buf, size_t size);
bool path_replay(const char *id); /* false if id does not parse */
bool path_replaying(void);
void path_replay_report(void);    /* after a replay: whether the id and the schedule ended together */

/* ---- execution.c: which schedules made the same execution ----------------- */

uint64_t execution_signature(void); /* the schedule so far, reduced to its execution */
void execution_reset(void);         /* before a round: no execution seen */
void execution_begin_schedule(void);
long execution_count(void);         /* distinct executions this round */
/* The comparison of two rounds' sets (run.c's explore_compare_unreduced):
 * this round's executions become the reference, and the next round asks
 * of each of its schedules whether its execution is one of them. */
void execution_keep_as_reference(void);
long execution_reference_count(void);
bool execution_in_reference(void); /* the schedule that just ran */

/* ---- thread.c: the threads and their turns ------------------------------- */

int thread_self(void);
bool thread_local_memory(const volatile void *p); /* p is in the step's thread-locals: each thread's own copy */
int thread_count(void);
const char *thread_name(int thread);
void thread_wait_turn(int self, step next); /* a scheduling point: wait until the scheduler names self */
/* What keeps a thread from running, set before thread_wait_turn (mutex.c). */
void thread_wants(int self, pthread_mutex_t *m);                 /* its next operation locks m */
/* In pthread_cond_wait on c, having unlocked m; spurious_from: the wait's
 * event if it may wake spuriously, once another thread unlocks m after
 * it, else -1 (mutex.c). */
void thread_waits(int self, pthread_cond_t *c, pthread_mutex_t *m, int spurious_from);
bool thread_still_waits(int self); /* not signalled: it went on spuriously */
unsigned thread_waiters(const pthread_cond_t *c);                /* who waits on c, not woken yet, a bit each */
void thread_wake(int thread);                                    /* a signal or broadcast wakes it */
void thread_hold(pthread_mutex_t *m, int owner, int lock_event);
void thread_release(pthread_mutex_t *m);
void thread_setup(const explore_scenario *s, void *ctx); /* before the scenario's setup; ctx: its threads' argument */
void thread_run_all(void);        /* starts the threads, runs them to their end, joins them */
void thread_end_schedule(void);
bool thread_running(void);        /* a schedule is being run (setup, threads, checks) */

/* ---- alloc.c, block.c, memcheck.c (block.h: between them) -------------------- */

void alloc_reset(void);
/* A use of obj by thread: "T1 owner <verb> <site> <prep> 'task' ..., which T0 freed" if it is freed. */
void alloc_check_use(int thread, const volatile void *obj, const char *verb, const explore_site *site,
                     const char *prep);
void alloc_check_leaks(void);
const void *alloc_block_of(const volatile void *addr); /* the block addr lies in (even freed), or NULL */
bool alloc_is_poison(const void *addr);
const void *alloc_poison(void);

/* ---- point.c ------------------------------------------------------------- */

void point_reset(void);
void point_set_spurious(bool on); /* weak compare-exchanges may fail spuriously: the search's options (run.c) */
void point_set_candidates(bool on); /* the candidate search: every choice offered, psc unchecked (run.c) */
void point_set_spurious_wakeups(bool on); /* pthread_cond_wait may wake unsignalled: the search's options (run.c) */
bool point_spurious_wakeups(void);        /* mutex.c asks */

/* ---- trace.c, graph.c, fail.c: what a student reads ---------------------- */

void trace_print(void); /* the schedule's events, one column per thread */
void trace_write(FILE *f); /* the same, into f */
void trace_set_width(int width); /* the options' width (run.c, when the search starts) */
void trace_format(const event *e, char *buf, size_t size); /* one event as its trace line says it */
void trace_json(struct json *j); /* the same as data: the threads, then each line's number, thread and text */
void graph_write(const char *path, const char *kind, const char *message);
void graph_json(struct json *j, const char *kind, const char *message); /* the same graph as data (--json) */
/* The events that make the failure, for the graph (fail.c keeps them). */
typedef struct evidence {
    int events[8];
    int n;
    const volatile void *culprit; /* explore_culprit: the coroutine or object the failure is about */
    char missing[160];            /* what never came ("resume of driver") */
    int missing_after;            /* the event it should have followed, -1 none */
} evidence;
evidence *fail_evidence(void);
void fail_blame(const event *e);   /* adds e to the failure's events */
void fail_reset(void);
/* fail.c: a failure recorded as a value; explore_fail records and unwinds
 * to where this thread's scheduler caught it (thread.c, run.c). */
void fail_record(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void fail_unwind(void);
void fail_catch(jmp_buf *where); /* NULL: nothing catches it, the failure line alone ends the process */
jmp_buf *fail_catching(void);     /* the running thread's (thread.c carries it across a switch) */
bool fail_pending(void);
const char *fail_kind(void);
const char *fail_message(void);
/* report.c: the failure as printed, by run.c once it unwound there; ends the process. */
_Noreturn void report_failure(const explore_scenario *s, const char *program, long schedules);
long run_schedules(void);

#endif /* LOCKSTEP_EXPLORE_MODEL_H */
