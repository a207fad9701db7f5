/*
 * What every file of the task_sequencer suite shares: the includes, the
 * helpers that queue an operation and read a task's result, and each
 * topic's table of cases (tests/unit/test_sequencer.c runs them all as one
 * suite, one ctest test per case).
 */
#ifndef LOCKSTEP_SEQUENCER_CASES_H
#define LOCKSTEP_SEQUENCER_CASES_H

#include "check_main.h"
#include "timing.h"
#include "sequencer_bodies.h"
#include "task_bodies.h"

#include "lockstep/alloc.h"
#include "lockstep/executor.h"
#include "lockstep/sequencer.h"
#include "lockstep/task.h"
#include "lockstep/trigger.h"

#include <errno.h>
#include <signal.h>
#include <assert.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define README "steps/06-sequencer/README.md"
#define SEQUENCER_WHY "the task_sequencer arrives in step 06"

static inline void seq_init(task_sequencer *seq)
{
    ck_assert_int_eq(task_sequencer_init(seq), 0);
}

/* Queues `op` with no executor; the queue call must succeed. */
static inline simple_task queue_op(task_sequencer *seq, seq_op *op)
{
    simple_task t = {0};
    int err = task_sequencer_queue(seq, seq_op_maker, op, NULL, &t);
    ck_assert_msg(err == 0, "queueing op %d failed with %d", op->id, err);
    ck_assert_ptr_nonnull(t.m_promise);
    return t;
}

/* The result of a task that must have completed; releases it. */
static inline task_result take_result(simple_task *t, const char *what)
{
    lockstep_assert_in_loop(task_has_completed(t), "%s: the task has not completed", what); /* in a race's loop */
    task_result r = simple_task_await_resume(t);
    simple_task_release(t);
    return r;
}

/* The log says ops 0..n-1 entered in order, one at a time. */
static inline void assert_in_order(const seq_log *log, size_t n)
{
    ck_assert_msg(log->n == n, "%zu bodies ran, expected %zu", log->n, n);
    for (size_t k = 0; k < n; ++k)
        lockstep_assert_in_loop(log->order[k] == (int)k,
                                "body %zu to run was op %d, expected op %zu (see " README ", 'The idea')", k,
                                log->order[k], k);
    ck_assert_msg(atomic_load(&log->overlaps) == 0, "%u bodies started while another was running (see " README
                  ", 'The idea')", atomic_load(&log->overlaps));
}

/* Each topic's cases (the file of that name), each table ending with {0}:
 * tests/unit/test_sequencer.c runs them in this order. */
extern const lockstep_case sequencer_order_cases[];
extern const lockstep_case sequencer_alloc_failure_cases[];
extern const lockstep_case sequencer_lifetime_cases[];
extern const lockstep_case sequencer_bounded_stack_cases[];
extern const lockstep_case sequencer_blocking_maker_cases[];
extern const lockstep_case sequencer_threads_cases[];
extern const lockstep_case sequencer_destroy_race_cases[];

#endif
