/*
 * task_sequencer under load: several threads queue on one sequencer while
 * the bodies complete on an executor, a million tasks per case by default
 * (LOCKSTEP_ITERATIONS scales it: sanitizer builds run fewer).
 *
 * Every body hops to the executor before it completes, so the completion of
 * task k (and with it the start of task k+1) happens on a worker while the
 * queuing threads link new tasks behind it: continue_with and complete race
 * on every node. A third of the tasks also move to the executor before their
 * maker runs (the executor argument of the queue call), a third are released
 * at once, unawaited.
 *
 * Checks, as in the unit suite: no two bodies overlap (an atomic flag), each
 * thread's tasks run in the order it queued them and each exactly once (the
 * bodies' plain log, which ThreadSanitizer also watches: a missing order in
 * continue_with or complete is a race on it), every awaited task completes
 * with its own op's result, and nothing leaks.
 *
 * Nothing here spins: the queuing threads block in simple_task_wait on their
 * oldest task when WINDOW are pending, the workers block on the executor's
 * condition variable, so it also runs on one CPU beside busy neighbours.
 */
#include "check_main.h"
#include "queuers.h"
#include "sequencer_bodies.h"
#include "task_bodies.h"

#include "lockstep/alloc.h"
#include "lockstep/executor.h"
#include "lockstep/sequencer.h"
#include "lockstep/task.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define README "steps/06-sequencer/README.md"
#define DEFAULT_TASKS 1000000u
#define QUEUERS 3
#define WINDOW 256

static int op_id(const queuer *q, size_t i)
{
    return q->index * (int)q->m + (int)i;
}

static void *queuer_main(void *arg)
{
    queuer *q = arg;
    simple_task pending[WINDOW];
    size_t slot_op[WINDOW]; /* which op each pending slot holds */
    size_t npending = 0, oldest = 0;
    for (size_t i = 0; i < q->m; ++i) {
        seq_op *op = &q->ops[i];
        seq_op_init(op, q->log, op_id(q, i), task_value(op_id(q, i)));
        op->hop = q->ex; /* every body completes on the executor */
        if (npending == WINDOW) { /* wait for the oldest */
            simple_task *t = &pending[oldest];
            q->bad_results += simple_task_wait(t).value != op_id(q, slot_op[oldest]);
            simple_task_release(t);
            oldest = (oldest + 1) % WINDOW;
            --npending;
        }
        size_t slot = (oldest + npending) % WINDOW;
        simple_task *t = &pending[slot];
        if (task_sequencer_queue(q->seq, seq_op_maker, op, i % 3 == 0 ? q->ex : NULL, t) != 0) {
            ++q->queue_errors;
            continue;
        }
        if (i % 3 == 1) {
            simple_task_release(t); /* unawaited: it still runs, then frees itself */
            continue;
        }
        slot_op[slot] = i;
        ++npending;
    }
    for (; npending > 0; --npending) {
        simple_task *t = &pending[oldest];
        q->bad_results += simple_task_wait(t).value != op_id(q, slot_op[oldest]);
        simple_task_release(t);
        oldest = (oldest + 1) % WINDOW;
    }
    return NULL;
}

START_TEST(queues_race_completions_on_the_executor)
{
    size_t m = lockstep_iterations(DEFAULT_TASKS) / QUEUERS;
    queue_load l;
    queue_load_init(&l, QUEUERS, m);
    task_sequencer seq;
    ck_assert_int_eq(task_sequencer_init(&seq), 0);

    queue_load_run(&l, &seq, queuer_main);
    /* the released tasks may still be running: destroy neither waits nor
     * cancels, the executor's destroy runs what is queued */
    task_sequencer_destroy(&seq);
    lockstep_executor_destroy(&l.ex);

    queue_load_check(&l);
    seq_log *log = &l.log;
    ck_assert_msg(atomic_load(&log->overlaps) == 0,
                  "%u bodies started while another was running (see " README ", 'Memory orders')",
                  atomic_load(&log->overlaps));
    ck_assert_msg(log->n == QUEUERS * m, "%zu bodies ran, expected %zu: each task exactly once", log->n,
                  (size_t)QUEUERS * m);
    size_t next[QUEUERS] = {0};
    size_t interleavings = 0;
    for (size_t k = 0; k < log->n; ++k) {
        int id = log->order[k];
        size_t thread = (size_t)id / m, i = (size_t)id % m;
        lockstep_assert_in_loop(thread < QUEUERS && i == next[thread],
                                "body %zu to run was op %d, expected thread %zu's op %zu: each thread's tasks run "
                                "in the order it queued them (see " README ", 'The idea')",
                                k, id, thread, thread < QUEUERS ? next[thread] : 0);
        ++next[thread];
        interleavings += k > 0 && (size_t)log->order[k - 1] / m != thread;
    }
    for (int i = 0; i < QUEUERS; ++i)
        ck_assert_uint_eq(l.ops[(size_t)i * m + m - 1].made, 1);
    printf("%zu tasks from %d threads; consecutive bodies came from different queuing threads %zu times\n", log->n, QUEUERS, interleavings);
    queue_load_free(&l);
}
END_TEST

int main(int argc, char **argv)
{
    static const lockstep_case cases[] = {
        {&queues_race_completions_on_the_executor, 6, "the task_sequencer arrives in step 06", 0,
         "a million tasks queued from three threads, bodies completing on the executor: strict order, no overlap, "
         "each task once, nothing leaked",
         "steps/06-sequencer/README.md, \"Memory orders\""},
    };
    return lockstep_check_main("stress.sequencer", LOCKSTEP_STEP, cases, sizeof cases / sizeof cases[0], argc,
                               argv);
}
