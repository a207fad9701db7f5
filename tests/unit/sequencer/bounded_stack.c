/*
 * task_sequencer unit tests: Erratum 5: a backlog, and a chain of awaiters, drain in bounded stack.
 * A 1,000,000-task backlog (alone and through an executor) and a chain of
 * 100,000 awaiters run on a 64 KiB stack, every maker at the same depth.
 *
 * Part of the sequencer's suite (tests/unit/test_sequencer.c runs it).
 */
#include "sequencer_cases.h"

static task_sequencer g_seq;

/* ---- erratum 5: a backlog drains in bounded stack -------------------------------
 * A gate op holds the sequencer while a million synchronous ops queue up;
 * firing the gate drains them all. The article starts each from inside the
 * previous one's complete(): a million nested calls. Run on a thread whose
 * stack is 64 KiB, and measure the spread of the bodies' stack frames. */
static uintptr_t g_lowest_sp, g_highest_sp;

typedef struct backlog_run {
    size_t n;
    seq_log log;
    int *order;
    unsigned long spread;
    int last_value, last_error;
    size_t made;
} backlog_run;

static int backlog_maker(void *ctx, simple_task *task)
{
    seq_op *op = ctx;
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    g_lowest_sp = sp < g_lowest_sp ? sp : g_lowest_sp;
    g_highest_sp = sp > g_highest_sp ? sp : g_highest_sp;
    return seq_op_maker(op, task);
}

static void *backlog_thread(void *arg)
{
    backlog_run *run = arg;
    seq_op *ops = malloc(run->n * sizeof *ops);
    if (!ops)
        return NULL;
    task_sequencer seq;
    task_sequencer_init(&seq);
    lockstep_trigger gate;
    lockstep_trigger_init(&gate);
    seq_op gate_op;
    seq_log gate_log;
    seq_log_init(&gate_log, NULL, 0);
    seq_op_init(&gate_op, &gate_log, -1, task_value(-1));
    gate_op.trig = &gate;
    simple_task t = {0};
    if (task_sequencer_queue(&seq, seq_op_maker, &gate_op, NULL, &t) != 0)
        abort();
    simple_task_release(&t); /* released while pending */
    for (size_t i = 0; i < run->n; ++i) {
        seq_op_init(&ops[i], &run->log, (int)i, task_value((intptr_t)i));
        simple_task_release(&t);
        if (task_sequencer_queue(&seq, backlog_maker, &ops[i], NULL, &t) != 0)
            abort();
    }
    g_lowest_sp = UINTPTR_MAX;
    g_highest_sp = 0;
    lockstep_trigger_fire(&gate);
    run->spread = (unsigned long)(g_highest_sp - g_lowest_sp);
    if (task_has_completed(&t)) {
        task_result r = simple_task_await_resume(&t);
        run->last_value = (int)r.value;
        run->last_error = r.error;
    }
    simple_task_release(&t);
    task_sequencer_destroy(&seq);
    run->made = 0;
    for (size_t i = 0; i < run->n; ++i)
        run->made += (size_t)ops[i].made;
    free(ops);
    return NULL;
}

START_TEST(backlog_drains_in_bounded_stack)
{
    backlog_run run = {.n = lockstep_iterations(1000000), .last_value = -1, .last_error = -1};
    run.order = malloc(run.n * sizeof *run.order);
    ck_assert_ptr_nonnull(run.order);
    seq_log_init(&run.log, run.order, run.n);
    pthread_attr_t attr;
    ck_assert_int_eq(pthread_attr_init(&attr), 0);
    ck_assert_int_eq(pthread_attr_setstacksize(&attr, 64 * 1024), 0);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, &attr, backlog_thread, &run), 0);
    pthread_join(th, NULL); /* a nested drain overflows that stack: SIGSEGV */
    pthread_attr_destroy(&attr);
    ck_assert_msg(run.made == run.n, "%zu of %zu makers ran", run.made, run.n);
    ck_assert_msg(run.spread < 1024,
                  "draining a backlog of %zu tasks spread the makers' frames over %lu bytes of stack: they nest "
                  "(erratum 5, see " README ", 'Bounded stack')", run.n, run.spread);
    ck_assert_msg(run.last_error == 0 && run.last_value == (int)run.n - 1,
                  "the last task completed with {%d, %d}, expected {0, %d}", run.last_error, run.last_value,
                  (int)run.n - 1);
    assert_in_order(&run.log, run.n);
    free(run.order);
}
END_TEST

/* The same backlog with an executor: each task's turn only posts it to the
 * executor, whose worker starts it from its own loop, so every maker runs at
 * the worker's base depth. */
START_TEST(backlog_on_an_executor_drains_in_bounded_stack)
{
    size_t n = lockstep_iterations(100000);
    lockstep_executor ex;
    ck_assert_int_eq(lockstep_executor_init(&ex, 1), 0);
    seq_op *ops = malloc(n * sizeof *ops);
    int *order = malloc(n * sizeof *order);
    ck_assert(ops && order);
    seq_log log, gate_log;
    seq_log_init(&log, order, n);
    seq_log_init(&gate_log, NULL, 0);
    lockstep_trigger gate;
    lockstep_trigger_init(&gate);
    seq_op gate_op;
    seq_op_init(&gate_op, &gate_log, -1, task_value(-1));
    gate_op.trig = &gate;
    seq_init(&g_seq);
    simple_task t = queue_op(&g_seq, &gate_op); /* runs here, suspends on the gate */
    simple_task_release(&t);
    for (size_t i = 0; i < n; ++i) {
        seq_op_init(&ops[i], &log, (int)i, task_value((intptr_t)i));
        simple_task_release(&t);
        int err = task_sequencer_queue(&g_seq, backlog_maker, &ops[i], &ex, &t);
        lockstep_assert_in_loop(err == 0, "task %zu: task_sequencer_queue returned %d", i, err);
    }
    g_lowest_sp = UINTPTR_MAX; /* the worker reads these after the gate fires */
    g_highest_sp = 0;
    lockstep_trigger_fire(&gate); /* the first task posts itself; the worker runs the rest */
    task_result r = simple_task_wait(&t);
    simple_task_release(&t);
    task_sequencer_destroy(&g_seq);
    lockstep_executor_destroy(&ex);
    ck_assert_msg(r.error == 0 && r.value == (intptr_t)n - 1, "the last task completed with {%d, %ld}", r.error,
                  (long)r.value);
    unsigned long spread = (unsigned long)(g_highest_sp - g_lowest_sp);
    ck_assert_msg(spread < 1024,
                  "draining a backlog of %zu tasks on an executor spread the makers' frames over %lu bytes of "
                  "stack: they nest (erratum 5, see " README ", 'Bounded stack')", n, spread);
    assert_in_order(&log, n);
    free(order);
    free(ops);
}
END_TEST

/* ---- a chain of awaiters drains in bounded stack ---------------------------------
 * K sequencers; task k on sequencer k has for its body task k-1 (its maker
 * hands it over), so task k awaits task k-1, and task 0 awaits a trigger.
 * Each sequencer also has a second, synchronous op queued behind. Firing the
 * trigger completes task 0, whose completion finishes task 1, and so on: each
 * end has an awaiter and a successor to run. Run on a 64 KiB stack. */
#define AWAITER_CHAIN 100000

typedef struct handover {
    simple_task task;
} handover;

static int handover_maker(void *ctx, simple_task *task)
{
    handover *h = ctx;
    *task = h->task; /* the body is an existing task: ownership moves */
    h->task.m_promise = NULL;
    return 0;
}

typedef struct chain_run {
    size_t k;
    size_t made;
    long bad;
    seq_log log;
    int value;
} chain_run;

static void *awaiter_chain_thread(void *arg)
{
    chain_run *run = arg;
    size_t k = run->k;
    task_sequencer *seqs = malloc(k * sizeof *seqs);
    handover *hand = malloc(k * sizeof *hand);
    seq_op *second = malloc(k * sizeof *second);
    if (!seqs || !hand || !second)
        abort();
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    if (triggered_task(&hand[0].task, &trig, task_value(0)) != 0)
        abort();
    simple_task second_task = {0}, t = {0};
    for (size_t i = 0; i < k; ++i) {
        task_sequencer_init(&seqs[i]);
        if (task_sequencer_queue(&seqs[i], handover_maker, &hand[i], NULL, &t) != 0)
            abort();
        if (i + 1 < k)
            hand[i + 1].task = t; /* the next sequencer's task awaits this one */
        seq_op_init(&second[i], &run->log, (int)i, task_value(1));
        if (task_sequencer_queue(&seqs[i], seq_op_maker, &second[i], NULL, &second_task) != 0)
            abort();
        simple_task_release(&second_task);
    }
    lockstep_trigger_fire(&trig);
    run->value = task_has_completed(&t) ? (int)simple_task_await_resume(&t).value : -1;
    simple_task_release(&t);
    run->made = 0;
    for (size_t i = 0; i < k; ++i) {
        run->made += (size_t)second[i].made;
        task_sequencer_destroy(&seqs[i]);
    }
    free(second);
    free(hand);
    free(seqs);
    return NULL;
}

START_TEST(awaiter_chain_drains_in_bounded_stack)
{
    chain_run run = {.k = AWAITER_CHAIN};
    seq_log_init(&run.log, NULL, 0);
    pthread_attr_t attr;
    ck_assert_int_eq(pthread_attr_init(&attr), 0);
    ck_assert_int_eq(pthread_attr_setstacksize(&attr, 64 * 1024), 0);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, &attr, awaiter_chain_thread, &run), 0);
    pthread_join(th, NULL); /* nesting per awaiter overflows that stack: SIGSEGV */
    pthread_attr_destroy(&attr);
    ck_assert_msg(run.value == 0, "the outermost task completed with %d, expected 0", run.value);
    ck_assert_msg(run.made == run.k, "%zu of %zu second ops ran", run.made, run.k);
}
END_TEST

/* This file's cases (sequencer_cases.h). */
const lockstep_case sequencer_bounded_stack_cases[] = {
    {&backlog_drains_in_bounded_stack, 6, SEQUENCER_WHY, 0,
     "a 1,000,000-task backlog drains on a 64 KiB stack, every maker at the same depth",
     "steps/06-sequencer/README.md, \"Bounded stack\""},
    {&backlog_on_an_executor_drains_in_bounded_stack, 6, SEQUENCER_WHY, 0,
     "the same backlog through an executor drains in bounded stack",
     "steps/06-sequencer/README.md, \"Bounded stack\""},
    {&awaiter_chain_drains_in_bounded_stack, 6, SEQUENCER_WHY, 0,
     "a chain of 100,000 awaiters, each with a successor queued, completes on a 64 KiB stack",
     "steps/06-sequencer/README.md, \"Bounded stack\""},
    {0},
};
