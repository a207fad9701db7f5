/*
 * task_sequencer unit tests: Several threads queue at once.
 * No two bodies overlap, each thread's tasks keep their order, each runs once.
 *
 * Part of the sequencer's suite (tests/unit/test_sequencer.c runs it).
 */
#include "sequencer_cases.h"

static task_sequencer g_seq;

/* ---- several threads queue at once ------------------------------------------
 * T threads each queue M ops on one sequencer, with an executor of two
 * workers: a third of the ops hop to the executor before their maker, a
 * third have bodies that complete on the executor, the rest run where they
 * start. Each thread keeps at most WINDOW tasks pending and waits for its
 * oldest. No two bodies overlap, each thread's ops run in the order it
 * queued them, every op runs exactly once with its own result. Under
 * ThreadSanitizer, a missing order in continue_with or complete shows up as
 * a race on the bodies' plain log. */
#define QUEUERS 4
#define WINDOW 64

typedef struct queuer {
    size_t m;
    int index;
    seq_op *ops;
    lockstep_executor *ex;
    seq_log *log;
    long bad_results;
    int queue_errors;
} queuer;

static void *queuer_main(void *arg)
{
    queuer *q = arg;
    simple_task pending[WINDOW];
    for (size_t i = 0; i < q->m; ++i) {
        seq_op *op = &q->ops[i];
        int id = q->index * (int)q->m + (int)i;
        seq_op_init(op, q->log, id, task_value(id));
        if (i % 3 == 1)
            op->hop = q->ex;
        simple_task *slot = &pending[i % WINDOW];
        if (i >= WINDOW) {
            q->bad_results += simple_task_wait(slot).value != id - WINDOW;
            simple_task_release(slot);
        }
        if (task_sequencer_queue(&g_seq, seq_op_maker, op, i % 3 == 2 ? q->ex : NULL, slot) != 0)
            ++q->queue_errors;
    }
    for (size_t i = q->m > WINDOW ? q->m - WINDOW : 0; i < q->m; ++i) {
        simple_task *slot = &pending[i % WINDOW];
        q->bad_results += simple_task_wait(slot).value != q->index * (int)q->m + (int)i;
        simple_task_release(slot);
    }
    return NULL;
}

/* Each queuer's ids appear in increasing order, each exactly once. */
static void assert_per_thread_order(const seq_log *log, size_t threads, size_t m)
{
    ck_assert_msg(log->n == threads * m, "%zu bodies ran, expected %zu (each op exactly once)", log->n, threads * m);
    int next[QUEUERS] = {0};
    for (size_t k = 0; k < log->n; ++k) {
        int id = log->order[k];
        int thread = id / (int)m;
        if (thread < 0 || thread >= (int)threads)
            ck_assert_msg(0, "unknown op id %d", id);
        if (id % (int)m != next[thread])
            ck_assert_msg(0,
                          "body %zu to run was thread %d's op %d, expected its op %d: a thread's tasks must run "
                          "in the order it queued them (see " README ", 'The idea')", k, thread, id % (int)m,
                          next[thread]);
        ++next[thread];
    }
    ck_assert_msg(atomic_load(&log->overlaps) == 0, "%u bodies started while another was running (see " README
                  ", 'Memory orders')", atomic_load(&log->overlaps));
}

START_TEST(queues_race_from_several_threads)
{
    size_t m = lockstep_iterations(100000) / QUEUERS;
    if (m > 50000)
        m = 50000;
    int *order = malloc(QUEUERS * m * sizeof *order);
    seq_op *ops = malloc(QUEUERS * m * sizeof *ops);
    ck_assert(order && ops);
    seq_log log;
    seq_log_init(&log, order, QUEUERS * m);
    lockstep_executor ex;
    ck_assert_int_eq(lockstep_executor_init(&ex, 2), 0);
    seq_init(&g_seq);
    queuer q[QUEUERS];
    pthread_t th[QUEUERS];
    for (int i = 0; i < QUEUERS; ++i) {
        q[i] = (queuer){.m = m, .index = i, .ops = ops + (size_t)i * m, .ex = &ex, .log = &log};
        ck_assert_int_eq(pthread_create(&th[i], NULL, queuer_main, &q[i]), 0);
    }
    for (int i = 0; i < QUEUERS; ++i)
        pthread_join(th[i], NULL);
    task_sequencer_destroy(&g_seq);
    lockstep_executor_destroy(&ex);
    for (int i = 0; i < QUEUERS; ++i) {
        ck_assert_int_eq(q[i].queue_errors, 0);
        ck_assert_msg(q[i].bad_results == 0, "thread %d: %ld tasks completed with another op's result", i,
                      q[i].bad_results);
    }
    assert_per_thread_order(&log, QUEUERS, m);
    free(ops);
    free(order);
}
END_TEST

/* Puts this file's cases at `cases`, which has room for `room`; returns how many. */
size_t sequencer_threads_cases(lockstep_case *cases, size_t room)
{
    const lockstep_case mine[] = { /* automatic: START_TEST names are pointer variables */
        {queues_race_from_several_threads, 6, SEQUENCER_WHY, 0,
         "queues from several threads: no two bodies overlap, each thread's tasks keep their order, each runs once",
         "steps/06-sequencer/README.md, \"Memory orders\""},
    };
    return copy_cases(cases, room, mine, sizeof mine / sizeof mine[0]);
}
