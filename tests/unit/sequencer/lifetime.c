/*
 * task_sequencer unit tests: Lifetimes: a task released early, a sequencer destroyed with work pending.
 * Neither cancels a queued task: it still runs, in order, and everything is freed.
 *
 * Part of the sequencer's suite (tests/unit/test_sequencer.c runs it).
 */
#include "sequencer_cases.h"

static task_sequencer g_seq;

/* Releasing a queued task before it starts neither cancels nor skips it. */
START_TEST(release_before_the_task_starts)
{
    int order[3];
    seq_log log;
    seq_log_init(&log, order, 3);
    seq_op ops[3];
    lockstep_trigger gate;
    lockstep_trigger_init(&gate);
    seq_init(&g_seq);
    for (int i = 0; i < 3; ++i)
        seq_op_init(&ops[i], &log, i, task_value(i));
    ops[0].trig = &gate;
    simple_task t0 = queue_op(&g_seq, &ops[0]);
    simple_task t1 = queue_op(&g_seq, &ops[1]);
    simple_task t2 = queue_op(&g_seq, &ops[2]);
    simple_task_release(&t1); /* not started yet */
    simple_task_release(&t0); /* started, suspended */
    ck_assert_int_eq(ops[1].made, 0);
    lockstep_trigger_fire(&gate);
    ck_assert_msg(ops[1].made == 1, "the released task was skipped: releasing must not cancel it (see " README
                  ", 'Where the C differs from the C++')");
    take_result(&t2, "after a released task");
    task_sequencer_destroy(&g_seq);
    assert_in_order(&log, 3);
}
END_TEST

/* Destroying the sequencer with tasks pending: they still run in order, and
 * everything is freed when the last one finishes. */
START_TEST(destroy_with_tasks_pending)
{
    int order[4];
    seq_log log;
    seq_log_init(&log, order, 4);
    seq_op ops[4];
    lockstep_trigger gate, last_gate;
    lockstep_trigger_init(&gate);
    lockstep_trigger_init(&last_gate);
    seq_init(&g_seq);
    for (int i = 0; i < 4; ++i)
        seq_op_init(&ops[i], &log, i, task_value(10 + i));
    ops[0].trig = &gate;
    ops[3].trig = &last_gate; /* the newest node's task is still running at destroy */
    simple_task t[4];
    for (int i = 0; i < 4; ++i)
        t[i] = queue_op(&g_seq, &ops[i]);
    simple_task_release(&t[1]);
    task_sequencer_destroy(&g_seq);
    ck_assert_int_eq(ops[1].made, 0);
    lockstep_trigger_fire(&gate);
    ck_assert_msg(ops[3].made == 1, "after destroy, the pending tasks must still run (see " README
                  ", 'Where the C differs from the C++')");
    ck_assert_msg(lockstep_alloc_live() > 0, "the last task is still running: its frames must still be there");
    lockstep_trigger_fire(&last_gate);
    ck_assert_int_eq(take_result(&t[0], "destroy").value, 10);
    ck_assert_int_eq(take_result(&t[2], "destroy").value, 12);
    ck_assert_int_eq(take_result(&t[3], "destroy").value, 13);
    assert_in_order(&log, 4);

    /* and destroy after the last task completed: destroy frees the node */
    int64_t live0 = lockstep_alloc_live();
    seq_init(&g_seq);
    seq_op_init(&ops[0], &log, 0, task_value(0));
    t[0] = queue_op(&g_seq, &ops[0]);
    take_result(&t[0], "destroy");
    ck_assert_msg(lockstep_alloc_live() - live0 == 1,
                  "a completed task's node stays until the sequencer lets go of it");
    task_sequencer_destroy(&g_seq);
}
END_TEST

/* Erratum 1 on a sequenced task: the coroutine awaiting a queued task is
 * destroyed while suspended (C++: the coroutine that holds the task is
 * destroyed), which releases the task. When the task's turn comes and it
 * completes, it must not resume the destroyed awaiter, and must still free
 * everything. From step 09 the join is the sequencer's own (the frame's
 * m_state), not the task's: its lambda checks RELEASED before it resumes. */
START_TEST(awaiter_destroyed_while_suspended)
{
    int order[2];
    seq_log log;
    seq_log_init(&log, order, 2);
    seq_op ops[2];
    lockstep_trigger gate;
    lockstep_trigger_init(&gate);
    int64_t live0 = lockstep_alloc_live();
    seq_init(&g_seq);
    for (int i = 0; i < 2; ++i)
        seq_op_init(&ops[i], &log, i, task_value(20 + i));
    ops[0].trig = &gate;
    simple_task g = queue_op(&g_seq, &ops[0]); /* runs, suspends on the gate */
    simple_task a = queue_op(&g_seq, &ops[1]); /* waits behind G */
    int driver_resumes = 0;
    driver_frame *d = driver_create(a);
    ck_assert_ptr_nonnull(d);
    d->resumes = &driver_resumes;
    lockstep_coro_resume(&d->coro); /* co_await a: suspends, A has not run */
    ck_assert_msg(d->path == PATH_SUSPENDED && !lockstep_coro_done(&d->coro),
                  "the driver should be suspended on task A, which waits behind G");
    lockstep_coro_destroy(&d->coro); /* frees the driver, releases task A */
    ck_assert_int_eq(ops[1].made, 0);

    lockstep_trigger_fire(&gate); /* G completes, A runs and completes */
    ck_assert_msg(ops[1].made == 1, "the released task A was skipped: releasing must not cancel it");
    ck_assert_msg(driver_resumes == 0, "task A's completion resumed its destroyed awaiter %d time(s): a use after "
                  "free (erratum 1; see steps/03-no-refcount/README.md, \"Errata this step fixes\")", driver_resumes);
    ck_assert_int_eq(take_result(&g, "the gate task").value, 20);
    task_sequencer_destroy(&g_seq);
    assert_in_order(&log, 2);
    ck_assert_msg(lockstep_alloc_live() == live0, "%lld allocation(s) left: the released task's frame leaked",
                  (long long)(lockstep_alloc_live() - live0));
}
END_TEST

/* This file's cases (sequencer_cases.h). */
const lockstep_case sequencer_lifetime_cases[] = {
    {&release_before_the_task_starts, 6, SEQUENCER_WHY, 0,
     "releasing a returned task before it starts does not skip it",
     "steps/06-sequencer/README.md, \"Errata this step fixes\" (lifetimes)"},
    {&destroy_with_tasks_pending, 6, SEQUENCER_WHY, 0,
     "destroying the sequencer with tasks pending neither cancels nor waits: they run in order, everything is freed",
     "steps/06-sequencer/README.md, \"The idea\""},
    {&awaiter_destroyed_while_suspended, 6, SEQUENCER_WHY, 0,
     "an awaiter of a queued task destroyed while suspended is never resumed; the task still runs, and is freed",
     "steps/09-lean-sequencer/README.md, \"The idea\" (erratum 1)"},
    {0},
};
