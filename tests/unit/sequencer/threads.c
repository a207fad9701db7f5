/*
 * task_sequencer unit tests: Several threads queue at once.
 * No two bodies overlap, each thread's tasks keep their order, each runs once.
 *
 * Part of the sequencer's suite (tests/unit/test_sequencer.c runs it).
 */
#include "sequencer_cases.h"
#include "queuers.h"

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
        if (task_sequencer_queue(q->seq, seq_op_maker, op, i % 3 == 2 ? q->ex : NULL, slot) != 0)
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
        lockstep_assert_in_loop(thread >= 0 && thread < (int)threads, "unknown op id %d", id);
        lockstep_assert_in_loop(id % (int)m == next[thread],
                                "body %zu to run was thread %d's op %d, expected its op %d: a thread's tasks must "
                                "run in the order it queued them (see " README ", 'The idea')",
                                k, thread, id % (int)m, next[thread]);
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
    queue_load l;
    queue_load_init(&l, QUEUERS, m);
    seq_init(&g_seq);
    queue_load_run(&l, &g_seq, queuer_main);
    task_sequencer_destroy(&g_seq);
    lockstep_executor_destroy(&l.ex);
    queue_load_check(&l);
    assert_per_thread_order(&l.log, QUEUERS, m);
    queue_load_free(&l);
}
END_TEST

/* This file's cases (sequencer_cases.h). */
const lockstep_case sequencer_threads_cases[] = {
    {&queues_race_from_several_threads, 6, SEQUENCER_WHY, 0,
     "queues from several threads: no two bodies overlap, each thread's tasks keep their order, each runs once",
     "steps/06-sequencer/README.md, \"Memory orders\""},
    {0},
};
