/*
 * Threads that queue on one sequencer at once, for the unit case
 * queues_race_from_several_threads (tests/unit/sequencer/threads.c) and the
 * stress case (tests/stress/stress_sequencer.c). Each file has its own
 * thread function (how many tasks it keeps pending, which hop to the
 * executor); what they share is the load (the ops, the log, the executor),
 * a queuer's state, starting and joining the threads, and the check of what
 * each thread counted.
 */
#ifndef LOCKSTEP_QUEUERS_H
#define LOCKSTEP_QUEUERS_H

#include "check_main.h"
#include "sequencer_bodies.h"

#include "lockstep/executor.h"
#include "lockstep/sequencer.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

/* One queuing thread: it queues its m ops on seq, in order. */
typedef struct queuer {
    task_sequencer *seq;
    lockstep_executor *ex;
    seq_log *log;
    seq_op *ops;      /* this thread's m ops */
    size_t m;
    int index;        /* its ops' ids are index * m + 0 .. m - 1 */
    long bad_results; /* tasks that completed with another op's result */
    int queue_errors; /* queue calls that failed */
} queuer;

/* What the queuing threads share: their n * m ops, the log their bodies
 * write (order: its buffer), an executor of two workers, and each thread's
 * queuer. */
typedef struct queue_load {
    int n;
    size_t m;
    int *order;
    seq_op *ops;
    seq_log log;
    lockstep_executor ex;
    queuer *q;
} queue_load;

static inline void queue_load_init(queue_load *l, int n, size_t m)
{
    l->n = n;
    l->m = m;
    l->order = malloc((size_t)n * m * sizeof *l->order);
    l->ops = malloc((size_t)n * m * sizeof *l->ops);
    l->q = malloc((size_t)n * sizeof *l->q);
    ck_assert(l->order && l->ops && l->q);
    seq_log_init(&l->log, l->order, (size_t)n * m);
    ck_assert_int_eq(lockstep_executor_init(&l->ex, 2), 0);
}

/* Runs the n queuers on n threads, each thread_main(&l->q[i]) queuing its m
 * ops on seq, and waits for them all. */
static inline void queue_load_run(queue_load *l, task_sequencer *seq, void *(*thread_main)(void *))
{
    pthread_t *th = malloc((size_t)l->n * sizeof *th);
    ck_assert_ptr_nonnull(th);
    for (int i = 0; i < l->n; ++i) {
        l->q[i] = (queuer){.seq = seq, .ex = &l->ex, .log = &l->log, .ops = l->ops + (size_t)i * l->m, .m = l->m,
                           .index = i};
        ck_assert_int_eq(pthread_create(&th[i], NULL, thread_main, &l->q[i]), 0);
    }
    for (int i = 0; i < l->n; ++i)
        pthread_join(th[i], NULL);
    free(th);
}

/* Every queue call succeeded and every awaited task had its own op's result. */
static inline void queue_load_check(const queue_load *l)
{
    for (int i = 0; i < l->n; ++i) {
        ck_assert_msg(l->q[i].queue_errors == 0, "thread %d: %d queue calls failed", i, l->q[i].queue_errors);
        ck_assert_msg(l->q[i].bad_results == 0, "thread %d: %ld tasks completed with another op's result", i,
                      l->q[i].bad_results);
    }
}

/* Frees what queue_load_init allocated (the executor is the caller's to destroy). */
static inline void queue_load_free(queue_load *l)
{
    free(l->q);
    free(l->ops);
    free(l->order);
}

#endif
