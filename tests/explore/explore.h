/*
 * The schedule explorer: what scenarios and the hook header see.
 *
 * A scenario is a few functions, each run on its own real thread. Exactly
 * one of them runs at a time: every atomic operation and every mutex call in
 * the step's sources (turned into a call to this file's functions by
 * hook.h) is a scheduling point, where the explorer decides which thread
 * performs its next operation. Running the scenario again and again, each
 * time with a different sequence of decisions, explores its interleavings
 * (path.c, run.c). Each run is checked (memcheck.c: use after free, double
 * free, leaks; datarace.c: data races; thread.c: deadlock; the scenario: its
 * own invariants), and a failing run prints as a trace (report.c). Usable
 * from any C11 source: it includes only standard and POSIX headers.
 */
#ifndef LOCKSTEP_EXPLORE_H
#define LOCKSTEP_EXPLORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json; /* core/json.h's writer: --json */

/* Most threads in a scenario (a decision is a bit mask over them). */
#define EXPLORE_MAX_THREADS 4
/* The main thread (setup and checks), as explore_self() says it: the
 * index after the scenario threads', so that every thread has one. */
#define EXPLORE_MAIN EXPLORE_MAX_THREADS

/* ---- scenarios ----------------------------------------------------------- */

typedef struct explore_scenario {
    const char *name;  /* the ctest name's last part, on the line that opens the entry (CMake reads it) */
    int min_step;      /* the first step it applies to */
    const char *about; /* one sentence, printed with the result */
    int nthreads;
    const char *thread_names[EXPLORE_MAX_THREADS];
    /* Every callback gets the scenario's context: the one value holding its
     * state, as pthread_create's start routine gets its argument
     * (explore_run's ctx; main.c passes a block of explore_context_size
     * bytes). It is zeroed once, before the search, not before each
     * schedule: the same block carries every schedule and round, so setup()
     * resets all that a schedule changes, and begin() all that a round
     * counts. */
    void (*threads[EXPLORE_MAX_THREADS])(void *ctx);
    void (*begin)(void *ctx);   /* optional: before each round of the search (run.c): resets the round's counts */
    void (*setup)(void *ctx);   /* before the threads start, on the main thread: resets the schedule's state */
    void (*check)(void *ctx);   /* after every thread has finished: invariants, cleanup */
    void (*summary)(void *ctx); /* optional: after the last round, invariants over all its schedules */
    int preemptions;       /* optional: the unreduced rounds of increasing bound, to this one, as --preemptions
                            * does (which overrides it); unset, the search is reduced and has no bound (run.c) */
    bool exhaustive;       /* optional: the reduced round alone, without the short rounds first (a litmus test) */
    int max_step;          /* optional: the last step it applies to (0: every step from min_step on) */
    const char *max_why;   /* with max_step: why it cannot apply to a later step */
    /* Optional, and the last member: when set, a data race calls it with the
     * report and the schedule goes on, instead of failing (herd7 reports a
     * race as a flag of the execution, a litmus front end does the same). */
    void (*on_race)(void *ctx, const char *what);
} explore_scenario;

/* Defined by each scenario source (scenario_task.c, scenario_event.c, scenario_sequencer.c). */
extern const explore_scenario explore_scenarios[];
extern const size_t explore_nscenarios;
extern const char *const explore_component;
extern const size_t explore_context_size; /* the size of its scenarios' context (main.c allocates it) */

/* One field of the scenario's context, for the trace: a data race on it
 * reads `set_called (the scenario's context)`, not the address main.c's
 * allocation happened to get. */
typedef struct explore_field {
    size_t offset; /* offsetof(the context's struct, the field) */
    size_t size;   /* its sizeof */
    const char *name;
} explore_field;
/* Defined by each scenario source next to its context's struct: every
 * field of it, in any order (a byte no entry covers prints as a byte of the
 * context). */
extern const explore_field explore_context_fields[];
extern const size_t explore_context_nfields;

/* Names ctx, the scenario's context of size bytes, for the rest of the
 * process: an address in it is named by the field of fields[0..nfields)
 * that covers it (names.c). Called by a program's main before explore_run;
 * fields may be NULL (nfields 0): the context's bytes, then. */
void explore_name_context(const void *ctx, size_t size, const explore_field *fields, size_t nfields);
extern const int explore_step; /* LOCKSTEP_STEP of the build */

/* How the scenario source prints the values of its step's fields
 * (m_waiting's sentinels, a flag): writes into buf and returns true, or
 * returns false to let the trace print the value generically. */
bool explore_decode(const char *field, const volatile void *obj, uintptr_t value, char *buf, size_t size);

/* ---- what scenarios call ------------------------------------------------ */

/* Reports a failure: records it and unwinds to the explorer (fail.c), which
 * prints the trace of this schedule, the failure line
 *     explore: FAILED (<kind>): <message>
 * and how to replay it, then ends the process. From a scenario thread, the
 * setup or check() (a scenario's own invariants). */
_Noreturn void explore_fail(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line in the calling thread's column of the trace (what the scenario does). */
void explore_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Names a block or coroutine frame for the trace ("driver" instead of an
 * address). A coroutine frame freed later has its resume function replaced
 * by a trap, so a resumption after the free is reported, not a crash. */
void explore_name(const volatile void *addr, const char *name);
void explore_name_coro(const volatile void *addr, const char *name);

/* Names the calling thread's next allocation; called again, the one after
 * it, and so on. For blocks a library call allocates where the scenario
 * cannot see them (the sequencer's node and wrapper frame in its queue
 * call). A failed allocation uses its name up too; NULL forgets the names
 * not used yet. coro: as explore_name_coro. */
void explore_name_next_alloc(const char *name, bool coro);

/* From now on (for the rest of the process), a trace line of an atomic
 * operation says whose field it is when the object lies in a named block:
 * `next of node B` rather than `next`. For scenarios with several objects of
 * one type (the sequencer's nodes); off by default, so that the task and
 * event traces stay as the READMEs show them. */
void explore_name_fields(void);

/* Whether p, a block from lockstep_alloc in this schedule, has been freed. */
bool explore_freed(const volatile void *p);

/* Failing allocations: lockstep_alloc_fail_nth(n), lockstep_alloc_fail_after
 * and lockstep_alloc_fail_none, from lockstep/alloc.h, work as with common's
 * allocator: per calling thread, the n-th allocation from now fails (its
 * trace line says so). Reset before each schedule. */

/* Blocks the calling scenario thread until ready(arg) is true (a
 * scheduling point: the thread is simply not runnable until then). For an
 * order the scenario needs, e.g. "complete only after the awaiter was
 * destroyed"; arg is the caller's (its context). */
void explore_wait_until(bool (*ready)(void *arg), void *arg, const char *what);

/* Between explore_unchecked(true) and (false), the calling thread's plain
 * accesses are the scenario observing, not the program: the race check
 * (datarace.c) leaves them out. For a scenario's peek at a counter another
 * thread may be writing; never around the step's own code. */
void explore_unchecked(bool on);

/* Reads the plain int at p into *value and returns true if every write to
 * it so far happens before the calling thread's point; returns false, and
 * leaves *value alone, if one may not. For an int set before the threads
 * start and written once after (a flag, a count from 0 to 1), "true and
 * the new value" means that write happens before the caller: a property
 * of the execution, the same in every schedule that makes it, so the step
 * that asks stays independent of the others, where a peek between
 * explore_unchecked calls is dependent on every step. For a scenario's
 * statistic such as "how many bodies had run when the sequencer was
 * destroyed", counted as "ran and happened before the destroy". Scenario
 * threads only. */
bool explore_read_settled(const volatile int *p, int *value);

/* The deepest nesting of trampolines the step's code started on one thread
 * since the scenario's threads started (hook.h: a lockstep_coro_resume in
 * the step's sources): 1 is a coroutine resumed from the step's code; a
 * chain of completions that nests one more each is a stack that grows. */
int explore_resume_nesting(void);

/* Whether the current run is a replay (--replay): summaries are skipped. */
bool explore_replaying(void);

/* The calling thread's index: 0..nthreads-1, or EXPLORE_MAIN. */
int explore_self(void);

/* Names the object a failure about to be reported is about (a coroutine
 * never resumed, or resumed twice), so that --graph draws the operations
 * that published it and the resumes it got. */
void explore_culprit(const volatile void *obj);

/* The name explore_name gave addr, or NULL. */
const char *explore_name_of(const volatile void *addr);

/* ---- what hook.h calls (not for scenarios) -------------------------------- */

/* Where a hooked call is in the source, as the hook macro wrote it. One per
 * call site, static, so that a site is a value with an address; the
 * atomic ones are also registered in a table (hook.h), so that --weaken can
 * check what it is given against the atomic operations the build contains. */
enum explore_call {
    EXPLORE_LOAD, EXPLORE_STORE, EXPLORE_EXCHANGE, EXPLORE_CAS, EXPLORE_FETCH, EXPLORE_FENCE,
    EXPLORE_MUTEX, EXPLORE_COND, EXPLORE_ALLOC, EXPLORE_FREE, EXPLORE_THREAD,
};
typedef struct explore_site {
    enum explore_call call;
    const char *name;   /* "load", "compare_exchange", "fetch_add", "lock", ... */
    const char *file;   /* __FILE__ */
    int line;
    const char *object; /* the object as written: "&p->m_waiting" */
    const char *order;  /* the order as written ("memory_order_acq_rel"), or NULL */
    const char *function; /* __func__ where it is written ("simple_promise_final_suspend"), or NULL */
} explore_site;

enum explore_rmw { EXPLORE_RMW_XCHG, EXPLORE_RMW_ADD, EXPLORE_RMW_SUB, EXPLORE_RMW_OR, EXPLORE_RMW_AND, EXPLORE_RMW_XOR };

/* One atomic operation, as hook.h builds it: everything the model needs is
 * here, and orders are values (memory_order_*), so a caller may compute
 * them at run time. */
typedef struct explore_atomic_op {
    const explore_site *site;
    volatile void *obj;
    size_t size;            /* the steps' atomics have the plain type's size; values travel as uintptr_t */
    int order;              /* as written; a compare-exchange's success order */
    int failure;            /* a compare-exchange's failure order */
    enum explore_rmw rmw;   /* an exchange or fetch_*: which */
    uintptr_t value;        /* what a store stores, a fetch_*'s operand, a compare-exchange's desired */
    void *expected;         /* a compare-exchange's: read, and written back when it fails */
    bool weak;              /* a weak compare-exchange: it may fail spuriously (7.17.7.4p4) */
    bool plain;             /* a load or store standing for a non-atomic access (a litmus test's *x, as
                             * herd's C has it): relaxed, but no fence orders it (location.c) */
} explore_atomic_op;

/* The operation under the C11 model (point.c, atomic.c): returns what it
 * read (a load's value, the old value of a read-modify-write, a
 * compare-exchange's success as 0 or 1). */
uintptr_t explore_atomic(const explore_atomic_op *op);
void explore_atomic_init(volatile void *obj, size_t size, uintptr_t value, const explore_site *site);
/* atomic_thread_fence (fence.c: C11 7.17.4, RC11's psc_F for seq_cst). */
void explore_fence(const explore_site *site, int order);
#define EXPLORE_MODEL_FENCES 1 /* the model has fences (the litmus front end reads it) */

int explore_mutex_lock(pthread_mutex_t *m, const explore_site *site);
int explore_mutex_unlock(pthread_mutex_t *m, const explore_site *site);
int explore_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, const explore_site *site);
int explore_cond_signal(pthread_cond_t *c, const explore_site *site);
int explore_cond_broadcast(pthread_cond_t *c, const explore_site *site);
/* A thread the code under test creates on a scenario thread (the
 * executor's workers) is a thread of the schedule (thread.c). */
int explore_thread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start_routine)(void *), void *arg,
                          const explore_site *site);
int explore_thread_join(pthread_t thread, void **result, const explore_site *site);

void *explore_alloc_at(size_t size, const explore_site *site);
void explore_free_at(void *p, const explore_site *site);
struct lockstep_coro;
void explore_coro_resume(struct lockstep_coro *h);

/* ---- for a program with its own main (main.c here, a litmus front end) ---- */

/* Memory orders by name, from order.c's one table of them (the trace, --weaken, a litmus file):
 * "acq_rel" for memory_order_acq_rel, "?" for none; and back, from "acq_rel" or
 * "memory_order_acq_rel", -1 if neither. */
const char *explore_order_name(int order);
int explore_order_parse(const char *text);

/* How a search runs (options.c): filled by a program's main, passed to
 * explore_run when the search starts; nothing inside the model reads the
 * environment. */
typedef struct explore_options {
    bool c11;            /* --model c11: N1570's release sequences, the classic dependence; false: RC11 */
    bool spurious;       /* a weak compare-exchange may fail spuriously (7.17.7.4p4), once per site and thread */
    bool spurious_wakeups; /* pthread_cond_wait may return unsignalled (POSIX), once per site and thread; on */
    int bound;           /* with bound_is_hard: the rounds of increasing preemption bound, to this one */
    bool bound_is_hard;  /* false: two short rounds, then the reduced search with no bound */
    const char *replay;  /* a schedule id: run that schedule alone; NULL: search */
    enum explore_check { EXPLORE_CHECK_NONE, EXPLORE_CHECK_EVERY, EXPLORE_CHECK_SLEEP }
        check_reduction; /* --check-reduction[=sleep]: the oracle explore_compare_search runs */
    const char *program; /* argv[0]: the replay command a failure prints */
    int width;           /* the trace's columns: $COLUMNS, the terminal's, or EXPLORE_NO_WIDTH */
    double graph_width;  /* --graph-width: the widest the graph's layout may be, points; 0: a page's column */
    bool candidates;     /* the candidate search: a load may read any store of its location and a store
                            take any place in its order, whatever coherence, atomicity and psc say, every
                            interleaving, so that consistency.c can say why an outcome is forbidden */
} explore_options;

/* explore_options' width into a file or a pipe: lines stay whole. */
#define EXPLORE_NO_WIDTH (1 << 16)

/* The defaults (RC11, spurious failures as spurious_default says, the
 * short rounds then no bound, the trace as wide as $COLUMNS or the
 * terminal), with what the user's environment says instead of an option:
 * LOCKSTEP_EXPLORE_MODEL=rc11|c11, LOCKSTEP_EXPLORE_SPURIOUS (1: spurious
 * failures; set to anything else: none), LOCKSTEP_EXPLORE_SPURIOUS_WAKEUPS
 * (0: no spurious wake-ups; they are on by default), LOCKSTEP_EXPLORE_PREEMPTIONS=P.
 * False, and why, on a model that is neither. The only reader of the
 * environment. */
bool explore_options_init(explore_options *o, const char *program, bool spurious_default, char *why, size_t size);
bool explore_parse_model(const char *name, bool *c11); /* "rc11" or "c11"; false if neither */
/* A number the programs read (an option, the environment), whole: a
 * number from lo to hi ("3", not "3x", "" or "-1"), or a positive number
 * of points ("340.5": --graph-width). False if text is not one; *out is
 * then unchanged. */
bool explore_parse_whole(const char *text, long lo, long hi, int *out);
bool explore_parse_points(const char *text, double *out);

/* The options both programs take (explore_<component>_stepNN and
 * explore_litmus), meant the same in both: each program's getopt_long
 * table names them with these values, and explore_take_option reads
 * them. */
enum {
    EXPLORE_OPT_MODEL = 512,     /* --model rc11|c11 */
    EXPLORE_OPT_CHECK_REDUCTION, /* --check-reduction[=sleep] */
    EXPLORE_OPT_GRAPH_WIDTH,     /* --graph-width PT */
    EXPLORE_OPT_REPLAY,          /* --replay ID */
};
/* Option c (one of the above) with its argument arg into o. False, and why (a sentence naming the option), if the
 * argument is bad: the program says so and exits 2 with its usage. */
bool explore_take_option(int c, const char *arg, explore_options *o, char *why, size_t size);

/* Explores s in rounds (run.c), or replays o->replay; returns how many
 * schedules the last round ran. ctx is passed to each of s's callbacks
 * (the caller's: the scenario's state, kept across the rounds and
 * schedules). A scenario marked .exhaustive, with bound_is_hard false,
 * runs one round with no bound (the bound is unused). Not thread safe. */
long explore_run(const explore_scenario *s, const explore_options *o, void *ctx);
bool explore_exhaustive(void); /* the last round skipped no schedule for the bound */
/* The reduction's oracle, after explore_run's reduced search (not bounded,
 * not a replay): runs s once more with no bound, over every interleaving
 * (o->check_reduction EXPLORE_CHECK_EVERY) or with sleep sets alone over
 * the classic dependence (EXPLORE_CHECK_SLEEP: the
 * reduction proved in 1996, for tests too big for every interleaving),
 * with ctx as explore_run has it,
 * and compares the two sets of
 * executions. Prints the sizes and the schedule of each execution (up to
 * 5) the reduced search did not meet. Returns how many executions one set
 * has and the other not: 0 when the reduction lost nothing. Not thread
 * safe (as explore_run). */
long explore_compare_search(const explore_scenario *s, const explore_options *o, void *ctx);
int explore_bound(void);       /* the last round's bound */
/* --weaken: NULL if taken; if refused, why, and the refusal's name: "syntax", "no-file" (no atomic operation in
 * a file of that name: this program links none of it), "no-line", "no-function", "no-nth", "ambiguous",
 * "not-weaker", "too-many" */
const char *explore_weaken(const char *spec, char *why, size_t size);
void explore_set_graph_path(const char *path);                 /* --graph FILE */
/* --json FILE: the run's result as JSON in FILE, for programs to read:
 * "result" passed, failed or skipped; a failure's kind, message, replay
 * command, trace and graph (explore_trace_json, explore_graph_json); a
 * pass's executions and schedules. explore_json_begin opens FILE with
 * the members every result has (the program, step, component, scenario,
 * result) and leaves the object open for the caller's; explore_json_end
 * closes it. False if FILE cannot be written (said on stderr) or no
 * --json was given. */
void explore_set_json_path(const char *path);
bool explore_json_begin(struct json *j, const explore_scenario *s, const char *program, const char *result);
/* The same without a scenario (--list, a refused --weaken): FILE opened and
 * the object begun with program, step and component; false as above. */
bool explore_json_open(struct json *j, const char *program);
bool explore_json_end(struct json *j);
void explore_set_graph_width(double points);                   /* --graph-width PT: the widest the graph's layout may be */
void explore_install_crash_handlers(void);
/* From a scenario's check(), about the schedule that just ran: */
void explore_schedule_id(char *buf, size_t size); /* its id, as --replay takes it */
/* RC11's verdict on an execution (consistency.c): consistent, or the axiom
 * it breaks and the shortest cycle that breaks it, as event indices. */
#define EXPLORE_CYCLE 16
typedef struct explore_verdict {
    const char *axiom;            /* NULL: consistent; "coherence", "atomicity", "sc", "no-thin-air" */
    char says[200];               /* "coherence: hb ; fr is a cycle (RC11: irreflexive(hb ; eco?))" */
    int n;                        /* the cycle's edges */
    int from[EXPLORE_CYCLE], to[EXPLORE_CYCLE];
    const char *label[EXPLORE_CYCLE]; /* each edge's relation: po, hb, rf, mo, fr, psc */
    int disorder;                 /* pairs of stores whose mo goes against hb: of two candidates for one
                                     outcome, the one with fewer says its point (CoRR's is its reads) */
} explore_verdict;
/* A plain (non-atomic) access that a program run by the explorer names
 * itself (a litmus file's *x), called just after the access's own trace
 * line: race-checked as the instrumentation would, and reported at site,
 * the program's line. */
void explore_plain(const volatile void *p, size_t size, bool write, const explore_site *site);
bool explore_consistent(explore_verdict *v);             /* the schedule that just ran: RC11's four axioms */
void explore_write_candidate(const char *path, const explore_verdict *v); /* its graph, v's cycle in red */
void explore_trace_print(void);                   /* its trace, as a failure prints it */
void explore_trace_write(FILE *f);                /* the same, into f */
void explore_write_graph(const char *path);       /* its execution graph (Graphviz), as --graph draws a failure */
/* The same as data, for --json: the trace's threads and steps, and the
 * graph's columns, boxes, edges (v: a candidate's, its cycle among them;
 * NULL: none), legend and notes, each as one JSON object written into j. */
void explore_trace_json(struct json *j);
void explore_graph_json(struct json *j, const explore_verdict *v);
/* Whether the schedule that just ran made an execution (what each load read,
 * the modification orders: execution.c) no earlier schedule of this round
 * made; asked again in the same schedule, the same answer. */
bool explore_execution_is_new(void);
long explore_executions(void); /* distinct executions of the last round */

#endif /* LOCKSTEP_EXPLORE_H */
