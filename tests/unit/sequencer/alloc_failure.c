/*
 * task_sequencer unit tests: Erratum 6: an allocation failure in the queue call.
 * Each allocation of task_sequencer_queue failing in turn: ENOMEM, nothing
 * linked or leaked, and the chain still runs the next task.
 *
 * Part of the sequencer's suite (tests/unit/test_sequencer.c runs it).
 */
#include "sequencer_cases.h"

static task_sequencer g_seq;

/* What a queue call allocates: the node and the task frame, or from step 09
 * the frame alone, with the node inside it. */
#ifdef LOCKSTEP_SEQUENCER_NODE_IN_FRAME
enum { QUEUE_ALLOCS = 1 };
#define QUEUE_ALLOCS_ARE "the task frame (the node is in it)"
#else
enum { QUEUE_ALLOCS = 2 };
#define QUEUE_ALLOCS_ARE "the node and the task frame"
#endif

/* ---- erratum 6: an allocation failure in the queue call ------------------------
 * For n = 1, 2, ...: make the n-th allocation of a queue call fail, on a busy
 * sequencer (a gate op holds it) and on an idle one, until a call runs out
 * of allocations to fail. A failed call must return ENOMEM, leave nothing
 * allocated, hand out no task, and the next queued task must still run in
 * its turn. Built with LOCKSTEP_ARTICLE_LINK_FIRST (the 2022 order), the
 * failure of the second allocation leaves a node in the chain that no task
 * will ever complete, and the next task never runs. */
static void assert_chain_still_runs(task_sequencer *seq, seq_log *log, int id, uint64_t n, const char *state)
{
    seq_op after;
    seq_op_init(&after, log, id, task_value(id));
    simple_task t = queue_op(seq, &after);
    ck_assert_msg(after.made == 1,
                  "on a %s sequencer, allocation %llu of a queue call failed; then the next task never ran: the "
                  "chain wedged (erratum 6, see " README ", 'Errata this step fixes')",
                  state, (unsigned long long)n);
    take_result(&t, "the task after a failed queue call");
}

START_TEST(alloc_failure_in_queue_leaves_the_chain_working)
{
    int order[64];
    seq_log log;
    seq_log_init(&log, order, 64);
    uint64_t busy_failures = 0, idle_failures = 0;
    for (uint64_t n = 1;; ++n) {
        /* busy: a gate op holds the sequencer */
        seq_init(&g_seq);
        lockstep_trigger gate;
        lockstep_trigger_init(&gate);
        seq_op gate_op, op;
        seq_op_init(&gate_op, &log, -1, task_value(-1));
        gate_op.trig = &gate;
        simple_task gate_task = queue_op(&g_seq, &gate_op);
        seq_op_init(&op, &log, (int)n, task_value(0));

        lockstep_alloc_counts before = lockstep_alloc_totals();
        simple_task t = {0};
        lockstep_alloc_fail_nth(n);
        int err = task_sequencer_queue(&g_seq, seq_op_maker, &op, NULL, &t);
        lockstep_alloc_fail_none();
        lockstep_alloc_counts after = lockstep_alloc_totals();
        bool failed = after.failures != before.failures;
        long long kept = (long long)((after.allocs - before.allocs) - (after.frees - before.frees));
        if (failed) {
            ++busy_failures;
            ck_assert_msg(err == ENOMEM, "busy sequencer, allocation %llu failed: queue returned %d, expected "
                          "ENOMEM", (unsigned long long)n, err);
            ck_assert_msg(!t.m_promise, "a failed queue call handed out a task");
        } else {
            ck_assert_int_eq(err, 0);
            simple_task_release(&t);
        }
        lockstep_trigger_fire(&gate);
        take_result(&gate_task, "the gate op");
        assert_chain_still_runs(&g_seq, &log, 100, n, "busy");
        ck_assert_msg(!failed || kept == 0,
                      "allocation %llu of a queue call failed and %lld block(s) stayed allocated (see " README
                      ", 'Errata this step fixes')", (unsigned long long)n, kept);
        task_sequencer_destroy(&g_seq);

        /* idle: the maker runs inside the queue call, so its body's
         * allocation is one of the call's; that one fails the task, not the
         * call */
        seq_init(&g_seq);
        seq_op_init(&op, &log, (int)n, task_value(0));
        before = lockstep_alloc_totals();
        lockstep_alloc_fail_nth(n);
        err = task_sequencer_queue(&g_seq, seq_op_maker, &op, NULL, &t);
        lockstep_alloc_fail_none();
        after = lockstep_alloc_totals();
        bool idle_failed = after.failures != before.failures;
        if (idle_failed && err) {
            ++idle_failures;
            ck_assert_msg(err == ENOMEM, "idle sequencer, allocation %llu failed: queue returned %d",
                          (unsigned long long)n, err);
            ck_assert_msg(op.made == 0, "a failed queue call ran its maker");
            ck_assert_msg(after.allocs - before.allocs == after.frees - before.frees,
                          "allocation %llu of a queue call failed and %lld block(s) stayed allocated (see " README
                          ", 'Errata this step fixes')", (unsigned long long)n,
                          (long long)((after.allocs - before.allocs) - (after.frees - before.frees)));
        } else {
            ck_assert_int_eq(err, 0);
            task_result r = take_result(&t, "idle queue");
            if (idle_failed)
                ck_assert_msg(r.error == ENOMEM, "the body's allocation failed: the task must complete with "
                              "ENOMEM, not %d", r.error);
        }
        assert_chain_still_runs(&g_seq, &log, 200, n, "idle");
        task_sequencer_destroy(&g_seq);
        log.n = 0;
        if (!failed && !idle_failed)
            break;
    }
    ck_assert_msg(busy_failures == QUEUE_ALLOCS && idle_failures == QUEUE_ALLOCS,
                  "expected %s to be the queue call's allocations (%d each), saw %llu (busy) and %llu (idle)",
                  QUEUE_ALLOCS_ARE, QUEUE_ALLOCS, (unsigned long long)busy_failures,
                  (unsigned long long)idle_failures);
}
END_TEST

/* This file's cases (sequencer_cases.h). */
const lockstep_case sequencer_alloc_failure_cases[] = {
    {&alloc_failure_in_queue_leaves_the_chain_working, 6, SEQUENCER_WHY, 0,
     "each allocation of a queue call failing in turn gives ENOMEM, links and leaks nothing, and the next task still runs",
     "steps/06-sequencer/README.md, \"Errata this step fixes\" (erratum 6)"},
    {0},
};
