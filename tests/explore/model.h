/*
 * The C11 memory model the explorer runs the steps under: what its files
 * share (clock.c, history.c, race.c, graph.c). Not for scenarios.
 *
 * The scheduler (sched.c) still runs one thread at a time; what changes is
 * what a thread *sees*:
 *
 *   clock.c    happens-before, as one vector clock per thread; mutexes and
 *              thread start/join carry clocks from one thread to another;
 *   history.c  every atomic location keeps its stores in modification
 *              order; a load may read any of them that coherence and
 *              happens-before still allow (a stale read), an acquire that
 *              reads a release (or its release sequence) joins its clock;
 *   race.c     every plain read and write of the step's sources (reached
 *              through the compiler's ThreadSanitizer instrumentation) is
 *              checked against the earlier conflicting ones: unordered by
 *              happens-before, they are a data race;
 *   graph.c    a failing execution drawn as an execution graph.
 *
 * References are to the C11 standard, N1570 numbering: 5.1.2.4 is
 * "Multi-threaded executions and data races", 7.17.3 "Order and
 * consistency".
 */
#ifndef LOCKSTEP_EXPLORE_MODEL_H
#define LOCKSTEP_EXPLORE_MODEL_H

#include "explore.h"

#include <stdint.h>

/* Clock slots: the scenario threads 0..EXPLORE_MAX_THREADS-1, then main
 * (setup and checks), which starts the threads and joins them. */
#define MODEL_SLOTS (EXPLORE_MAX_THREADS + 1)
#define MODEL_MAIN EXPLORE_MAX_THREADS

/* ---- clock.c: happens-before --------------------------------------------- */

/* A vector clock: c[u] is how much of thread u's history happens before. */
typedef struct vclock {
    uint32_t c[MODEL_SLOTS];
} vclock;

void model_clock_reset(void);               /* before each schedule */
int model_slot(void);                       /* the calling thread's slot */
const vclock *model_clock(int slot);
uint32_t model_now(int slot);               /* its own component: the epoch of its next access */
void model_tick(int slot);                  /* after a synchronizing operation */
void model_join(int slot, const vclock *from);
void vclock_join(vclock *into, const vclock *from);
bool vclock_is_zero(const vclock *v);
/* Whether thread u's access at epoch e happens before slot's current point. */
bool model_hb(int u, uint32_t e, int slot);

/* Synchronizing objects outside the atomics (5.1.2.4p6-7, POSIX 4.12
 * "Memory Synchronization"): the clock each carries. */
void model_mutex_unlock(const void *m); /* release: m's clock := the unlocker's */
void model_mutex_lock(const void *m);   /* acquire: the locker joins m's clock */
void model_thread_start(int thread);    /* the creator's history happens before the thread's */
void model_thread_join(int thread);     /* the thread's history happens before the joiner's rest */

/* ---- history.c: atomic locations ------------------------------------------- */

enum { MO_RELAXED = 0, MO_CONSUME = 1, MO_ACQUIRE = 2, MO_RELEASE = 3, MO_ACQ_REL = 4, MO_SEQ_CST = 5 };

void model_history_reset(void);
bool model_history_truncated(void); /* a load could have read a store older than the kept history */
/* After explore_log_op wrote the line of the operation just done. */
void model_logged(int trace_line);
/* Text the trace line of the operation just done gets at its end ("" if none). */
const char *model_annotation(void);
void model_forget(const volatile void *addr, size_t size); /* a freed block's locations */

/* What a data race report needs to say why nothing ordered two accesses:
 * writes into buf one sentence about the missing edge from thread `from`
 * (its access at epoch e) to thread `to` (its current point). */
void model_explain_missing_edge(int from, uint32_t e, int to, char *buf, size_t size);

/* For graph.c: the atomic events of this schedule. */
typedef struct model_event {
    int slot;
    int trace_line;        /* 1-based line of the trace */
    const char *file;
    int line;
    char text[96];         /* "exchange m_waiting [acq_rel]" */
    bool is_store, is_load;
    int reads_from;        /* index of the event whose store it read, -1 if none */
    bool synchronizes;     /* an acquire that joined the clock of the store it read */
    bool stale;            /* read an older store than the newest */
} model_event;
int model_nevents(void);
const model_event *model_events(void);

/* ---- race.c: plain accesses ---------------------------------------------- */

void model_race_reset(void);
/* An atomic operation of the calling thread on [p, p + size) (history.c). */
void model_atomic_access(const volatile void *p, size_t size, bool wrote);
/* atomic_init's plain write (history.c). */
void model_init_as_write(const volatile void *p, size_t size, const char *file, int line);
/* A plain write of [p, p + size) by the calling thread that frees it. */
void model_free_as_write(const volatile void *p, size_t size, const char *file, int line);
/* While the scheduler runs a scenario's predicate: not the program's accesses. */
void model_quiet(bool on);

/* For graph.c: the racing pair of the failure, if the failure is a race. */
typedef struct model_access {
    int slot;
    bool write;
    int trace_line;  /* the access happened after this trace line (0: before the first) */
    char site[160];  /* "task.c:70 (p->m_holder = result;)" */
} model_access;
bool model_race_pair(model_access *first, model_access *second);

/* ---- graph.c ------------------------------------------------------------- */

/* Writes the execution graph of the current schedule to path (Graphviz). */
void model_write_graph(const char *path);

#endif /* LOCKSTEP_EXPLORE_MODEL_H */
