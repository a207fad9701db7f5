/*
 * task_sequencer unit tests: The sequencer's promise: queue order, results and errors, the maker's thread.
 * Tasks run one after another in queue order whatever their bodies do; each
 * returned task completes with its body's result or its maker's error; with an
 * executor the maker runs on the executor's thread; a body may queue more.
 *
 * Part of the sequencer's suite (tests/unit/test_sequencer.c runs it).
 */
#include "sequencer_cases.h"

static task_sequencer g_seq;

START_TEST(first_task_runs_at_once)
{
    int order[1];
    seq_log log;
    seq_log_init(&log, order, 1);
    seq_op op;
    seq_op_init(&op, &log, 0, task_value(42));
    seq_init(&g_seq);
    simple_task t = queue_op(&g_seq, &op);
    ck_assert_msg(op.made == 1, "on an idle sequencer the maker must run inside the queue call (it ran %d times)",
                  op.made);
    task_result r = take_result(&t, "first task on an idle sequencer");
    ck_assert_int_eq(r.error, 0);
    ck_assert_int_eq(r.value, 42);
    task_sequencer_destroy(&g_seq);
    assert_in_order(&log, 1);
}
END_TEST

/* Ops 0..N-1: every third suspends on its own trigger, the rest complete
 * synchronously. Nothing after a suspended op may start until the test
 * fires its trigger; then everything up to the next suspending op runs. */
#define MIXED_OPS 60

START_TEST(strict_order_with_mixed_bodies)
{
    int order[MIXED_OPS];
    seq_log log;
    seq_log_init(&log, order, MIXED_OPS);
    seq_op ops[MIXED_OPS];
    lockstep_trigger trig[MIXED_OPS];
    simple_task t[MIXED_OPS];
    seq_init(&g_seq);
    for (int i = 0; i < MIXED_OPS; ++i) {
        seq_op_init(&ops[i], &log, i, task_value(1000 + i));
        lockstep_trigger_init(&trig[i]);
        if (i % 3 == 1)
            ops[i].trig = &trig[i];
        t[i] = queue_op(&g_seq, &ops[i]);
    }
    for (int i = 0; i < MIXED_OPS; ++i) {
        ck_assert_msg(ops[i].made == 1, "op %d: the maker ran %d times, expected once", i, ops[i].made);
        ck_assert_msg(ops[i].left_before_made == i - 1,
                      "op %d's maker ran when the last finished body was op %d: it must run only after op %d "
                      "completed (see " README ", 'The idea')", i, ops[i].left_before_made, i - 1);
        if (i + 1 < MIXED_OPS && ops[i].trig)
            ck_assert_msg(ops[i + 1].made == 0, "op %d started while op %d was suspended (see " README
                          ", 'The idea')", i + 1, i);
        if (ops[i].trig)
            lockstep_trigger_fire(&trig[i]);
    }
    for (int i = 0; i < MIXED_OPS; ++i) {
        task_result r = take_result(&t[i], "mixed bodies");
        ck_assert_int_eq(r.value, 1000 + i);
    }
    task_sequencer_destroy(&g_seq);
    assert_in_order(&log, MIXED_OPS);
}
END_TEST

START_TEST(results_and_errors_propagate)
{
    int order[4];
    seq_log log;
    seq_log_init(&log, order, 4);
    seq_op ops[4];
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    seq_init(&g_seq);
    seq_op_init(&ops[0], &log, 0, (task_result){EIO, 0});
    ops[0].trig = &trig; /* an error through the suspend path */
    seq_op_init(&ops[1], &log, 1, task_value(-7));
    seq_op_init(&ops[2], &log, 2, (task_result){ECANCELED, 5});
    seq_op_init(&ops[3], &log, 3, task_value(INTPTR_MAX));
    simple_task t[4];
    for (int i = 0; i < 4; ++i)
        t[i] = queue_op(&g_seq, &ops[i]);
    lockstep_trigger_fire(&trig);
    task_result want[4] = {{EIO, 0}, {0, -7}, {ECANCELED, 5}, {0, INTPTR_MAX}};
    for (int i = 0; i < 4; ++i) {
        task_result r = take_result(&t[i], "results");
        ck_assert_msg(r.error == want[i].error && r.value == want[i].value,
                      "op %d completed with {%d, %ld}, expected the body's {%d, %ld}", i, r.error, (long)r.value,
                      want[i].error, (long)want[i].value);
    }
    task_sequencer_destroy(&g_seq);
    assert_in_order(&log, 4);
}
END_TEST

/* The maker fails twice: once on its own (EPERM), once because creating the
 * body runs out of memory. Each task completes with that error, and the
 * chain goes on. */
START_TEST(maker_failure_completes_the_task_with_its_error)
{
    int order[4];
    seq_log log;
    seq_log_init(&log, order, 4);
    seq_op ops[4];
    lockstep_trigger gate;
    lockstep_trigger_init(&gate);
    seq_init(&g_seq);
    for (int i = 0; i < 4; ++i)
        seq_op_init(&ops[i], &log, i, task_value(i));
    ops[0].trig = &gate;
    ops[1].fail_maker = EPERM;
    simple_task t[4];
    for (int i = 0; i < 4; ++i)
        t[i] = queue_op(&g_seq, &ops[i]);

    /* ops[2]'s maker runs on this thread when the gate fires: make the body's
     * allocation fail (op 0 completing allocates nothing; op 1 makes nothing). */
    lockstep_alloc_fail_nth(1);
    lockstep_trigger_fire(&gate);
    lockstep_alloc_fail_none();

    task_result r[4];
    for (int i = 0; i < 4; ++i) {
        ck_assert_msg(ops[i].made == 1, "op %d: the maker ran %d times, expected once (see " README
                      ", 'Errata this step fixes', complete is the last act)", i, ops[i].made);
        r[i] = take_result(&t[i], "maker failure");
    }
    ck_assert_int_eq(r[0].error, 0);
    ck_assert_msg(r[1].error == EPERM, "op 1's maker failed with EPERM; the task completed with %d", r[1].error);
    ck_assert_msg(r[2].error == ENOMEM, "op 2's body could not be allocated; the task completed with %d, "
                  "expected ENOMEM", r[2].error);
    ck_assert_msg(r[3].error == 0 && r[3].value == 3,
                  "after two failed makers, op 3 completed with {%d, %ld}: the chain must go on", r[3].error,
                  (long)r[3].value);
    task_sequencer_destroy(&g_seq);
    /* only ops 0 and 3 had bodies */
    ck_assert_uint_eq(log.n, 2);
    ck_assert_int_eq(log.order[0], 0);
    ck_assert_int_eq(log.order[1], 3);
}
END_TEST

/* With an executor, the maker runs on the executor's thread. */
START_TEST(executor_hop_runs_the_maker_on_the_executor)
{
    enum { OPS = 8 };
    int order[OPS];
    seq_log log;
    seq_log_init(&log, order, OPS);
    lockstep_executor ex;
    ck_assert_int_eq(lockstep_executor_init(&ex, 1), 0);
    seq_op ops[OPS];
    simple_task t[OPS];
    seq_init(&g_seq);
    for (int i = 0; i < OPS; ++i) {
        seq_op_init(&ops[i], &log, i, task_value(i));
        if (i % 2)
            ops[i].hop = &ex; /* the body too completes on the executor */
        ck_assert_int_eq(task_sequencer_queue(&g_seq, seq_op_maker, &ops[i], &ex, &t[i]), 0);
    }
    for (int i = 0; i < OPS; ++i) {
        task_result r = simple_task_wait(&t[i]);
        simple_task_release(&t[i]);
        ck_assert_int_eq(r.value, i);
    }
    task_sequencer_destroy(&g_seq);
    lockstep_executor_destroy(&ex);
    for (int i = 0; i < OPS; ++i)
        ck_assert_msg(pthread_equal(ops[i].maker_thread, ex.threads[0]),
                      "op %d's maker ran on another thread than the executor's (see " README
                      ", 'Where the C differs from the C++')", i);
    assert_in_order(&log, OPS);
}
END_TEST

/* A maker that queues onto its own sequencer: the new task runs after it. */
typedef struct requeue {
    seq_op op;
    seq_op inner;
    simple_task inner_task;
    int inner_made_during_maker;
} requeue;

static int requeue_maker(void *ctx, simple_task *task)
{
    requeue *r = ctx;
    int err = task_sequencer_queue(&g_seq, seq_op_maker, &r->inner, NULL, &r->inner_task);
    if (err)
        return err;
    r->inner_made_during_maker = r->inner.made;
    return seq_op_maker(&r->op, task);
}

START_TEST(queue_from_inside_a_task)
{
    int order[2];
    seq_log log;
    seq_log_init(&log, order, 2);
    requeue r;
    seq_op_init(&r.op, &log, 0, task_value(0));
    seq_op_init(&r.inner, &log, 1, task_value(1));
    seq_init(&g_seq);
    simple_task t = {0};
    ck_assert_int_eq(task_sequencer_queue(&g_seq, requeue_maker, &r, NULL, &t), 0);
    ck_assert_msg(r.inner_made_during_maker == 0, "a task queued by a running task ran before it finished");
    take_result(&t, "outer");
    take_result(&r.inner_task, "inner");
    task_sequencer_destroy(&g_seq);
    assert_in_order(&log, 2);
}
END_TEST

/* This file's cases (sequencer_cases.h). */
const lockstep_case sequencer_order_cases[] = {
    {&first_task_runs_at_once, 6, SEQUENCER_WHY, 0,
     "the first task queued on an idle sequencer runs at once",
     "steps/06-sequencer/README.md, \"The idea\""},
    {&strict_order_with_mixed_bodies, 6, SEQUENCER_WHY, 0,
     "tasks run one after another in queue order, synchronous and suspending bodies mixed; each maker runs only after the previous body has left",
     "steps/06-sequencer/README.md, \"The idea\""},
    {&results_and_errors_propagate, 6, SEQUENCER_WHY, 0,
     "each returned task completes with its body's result or error",
     "steps/06-sequencer/README.md, \"Errata this step fixes\" (complete is the last act)"},
    {&maker_failure_completes_the_task_with_its_error, 6, SEQUENCER_WHY, 0,
     "a maker that fails completes the returned task with its error, and the chain goes on",
     "steps/06-sequencer/README.md, \"Errata this step fixes\" (complete is the last act)"},
    {&executor_hop_runs_the_maker_on_the_executor, 6, SEQUENCER_WHY, 0,
     "with an executor, the maker runs on the executor's thread",
     "steps/06-sequencer/README.md, \"From C++ to C\""},
    {&queue_from_inside_a_task, 6, SEQUENCER_WHY, 0,
     "a task body that queues on the sequencer runs the new task after itself",
     "steps/06-sequencer/README.md, \"The idea\""},
    {0},
};
