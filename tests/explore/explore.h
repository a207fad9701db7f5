/*
 * The schedule explorer: what scenarios and the hook header see.
 *
 * A scenario is a few functions, each run on its own real thread. Exactly
 * one of them runs at a time: every atomic operation and every mutex call in
 * the step's sources (turned into a call to this file's functions by
 * hook.h) is a scheduling point, where the explorer decides which thread
 * performs its next operation. Running the scenario again and again, each
 * time with a different sequence of decisions, explores its interleavings
 * (sched.c). Each run is checked (alloc.c: use after free, double free,
 * leaks; sched.c: deadlock; the scenario: its own invariants), and a failing
 * run prints as a trace (trace.c).
 */
#ifndef LOCKSTEP_EXPLORE_H
#define LOCKSTEP_EXPLORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most threads in a scenario (a decision is a bit mask over them). */
#define EXPLORE_MAX_THREADS 4

/* ---- scenarios ----------------------------------------------------------- */

typedef struct explore_scenario {
    const char *name;  /* the ctest name's last part; one line with min_step (CMake reads it) */
    int min_step;      /* the first step it applies to */
    const char *about; /* one sentence, printed with the result */
    int nthreads;
    const char *thread_names[EXPLORE_MAX_THREADS];
    void (*threads[EXPLORE_MAX_THREADS])(void);
    void (*begin)(void);   /* optional: before each round of the search (sched.c) */
    void (*setup)(void);   /* before the threads start, on the main thread */
    void (*check)(void);   /* after every thread has finished: invariants, cleanup */
    void (*summary)(void); /* optional: after the last round, invariants over all its schedules */
    int preemptions;       /* optional: stop at this bound, as --preemptions does (which overrides it); for a
                            * scenario that is never exhaustive and whose deeper rounds would cost seconds */
} explore_scenario;

/* Defined by each scenario source (scenario_task.c, scenario_event.c, scenario_sequencer.c). */
extern const explore_scenario explore_scenarios[];
extern const size_t explore_nscenarios;
extern const char *const explore_component;
extern const int explore_step; /* LOCKSTEP_STEP of the build */

/* How the scenario source prints the values of its step's fields
 * (m_waiting's sentinels, a flag): writes into buf and returns true, or
 * returns false to let the trace print the value generically. */
bool explore_decode(const char *field, const volatile void *obj, uintptr_t value, char *buf, size_t size);

/* ---- what scenarios call ------------------------------------------------ */

/* Reports a failure: prints the trace of this schedule, the failure line
 *     explore: FAILED (<kind>): <message>
 * and how to replay it, then ends the process. */
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

/* Blocks the calling scenario thread until ready() is true (a scheduling
 * point: the thread is simply not runnable until then). For an order the
 * scenario needs, e.g. "complete only after the awaiter was destroyed". */
void explore_wait_until(bool (*ready)(void), const char *what);

/* Between explore_unchecked(true) and (false), the calling thread's plain
 * accesses are the scenario observing, not the program: the race check
 * (race.c) leaves them out. For a scenario's peek at a counter another
 * thread may be writing; never around the step's own code. */
void explore_unchecked(bool on);

/* The deepest nesting of trampolines the step's code started on one thread
 * since the scenario's threads started (hook.h: a lockstep_coro_resume in
 * the step's sources): 1 is a coroutine resumed from the step's code; a
 * chain of completions that nests one more each is a stack that grows. */
int explore_resume_nesting(void);

/* Whether the current run is a replay (--replay): summaries are skipped. */
bool explore_replaying(void);

/* ---- what hook.h calls (not for scenarios) -------------------------------- */

enum explore_op { EXPLORE_LOAD, EXPLORE_STORE, EXPLORE_EXCHANGE, EXPLORE_CAS, EXPLORE_FETCH };
enum explore_rmw { EXPLORE_RMW_XCHG, EXPLORE_RMW_ADD, EXPLORE_RMW_SUB, EXPLORE_RMW_OR, EXPLORE_RMW_AND, EXPLORE_RMW_XOR };

/* The atomic operations themselves, under the C11 model (history.c): each
 * returns what the operation reads, which for a load may be an older store
 * than the newest. Values travel as uintptr_t, size bytes of them. */
void explore_atomic_init(volatile void *obj, size_t size, uintptr_t value, const char *file, int line);
uintptr_t explore_atomic_load(const volatile void *obj, size_t size, int order, const char *objtext);
void explore_atomic_store(volatile void *obj, size_t size, uintptr_t value, int order, const char *objtext);
uintptr_t explore_atomic_rmw(volatile void *obj, size_t size, enum explore_rmw op, uintptr_t arg, int order,
                             const char *objtext);
bool explore_atomic_cas(volatile void *obj, size_t size, void *expected, uintptr_t desired, int success,
                        int failure, const char *objtext);
_Noreturn void explore_fence(const char *ordertext, const char *file, int line);
/* --weaken FILE:LINE=ORDER (history.c): false if spec is not of that form. */
bool explore_weaken(const char *spec);
/* The order given by --weaken for the operation at file:line, or NULL. */
const char *explore_weakened_order(const char *file, int line);
void explore_weaken_args(char *buf, size_t size); /* " --weaken ..." for the replay line */

/* The scheduling point before an atomic operation on obj: waits for this
 * thread's turn, then checks that obj is not in a freed block. */
void explore_point(const volatile void *obj, size_t size, const char *file, int line);
/* After the operation: one trace line. */
void explore_log_op(enum explore_op op, const char *opname, const char *objtext, const char *ordertext,
                    const volatile void *obj, uintptr_t stored, uintptr_t expected, uintptr_t took, bool ok);

int explore_mutex_lock(pthread_mutex_t *m, const char *text, const char *file, int line);
int explore_mutex_unlock(pthread_mutex_t *m, const char *text, const char *file, int line);
int explore_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, const char *text, const char *file, int line);
int explore_cond_signal(pthread_cond_t *c, const char *text, const char *file, int line);
int explore_cond_broadcast(pthread_cond_t *c, const char *text, const char *file, int line);

void *explore_alloc_at(size_t size, const char *file, int line);
struct lockstep_coro;
void explore_coro_resume(struct lockstep_coro *h);
void explore_free_at(void *p, const char *file, int line);

/* ---- between the explorer's own files ------------------------------------ */

/* sched.c */
/* Explores s (see sched.c for the rounds), or replays one schedule; returns
 * how many schedules the last round ran. */
long explore_run(const explore_scenario *s, const char *program, int bound, bool bound_is_hard,
                 const char *replay_id);
bool explore_exhaustive(void);          /* the last round skipped no schedule for the bound */
/* A decision of the running thread among n options (0: the default, the
 * others cost one unit of the bound each): which store a load reads. */
int explore_choose(int n);
bool explore_running(void);             /* a schedule is being run (setup, threads, checks) */
int explore_bound(void);                /* the last round's bound */
int explore_self(void);                 /* the calling scenario thread's index, -1 on the main thread */
int explore_nthreads(void);
const char *explore_thread_name(int i);
void explore_schedule_id(char *buf, size_t size);
void explore_failure_footer(void);      /* the replay line */

/* trace.c */
extern _Thread_local const char *explore_site_file; /* set by explore_point for explore_log_op */
extern _Thread_local int explore_site_line;
void explore_trace_reset(void);
void explore_trace_add(int thread, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int explore_trace_length(void);
void explore_trace_print(void);
void explore_set_graph_path(const char *path); /* --graph FILE: a failure also writes its execution graph */
void explore_format_value(const char *field, const volatile void *obj, uintptr_t v, char *buf, size_t size);
const char *explore_name_of(const volatile void *addr);
bool explore_is_coro(const volatile void *addr);
const char *explore_field(const char *objtext, char *buf, size_t size);

/* alloc.c */
void explore_alloc_reset(void);         /* really frees the last run's blocks */
void explore_check_access(const volatile void *obj, size_t size, const char *what);
void explore_check_leaks(void);
const void *explore_block_of(const volatile void *addr); /* the block addr lies in (even freed), or NULL */
void explore_install_crash_handlers(void);

#endif /* LOCKSTEP_EXPLORE_H */
