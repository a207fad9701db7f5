/*
 * task_sequencer: one Check suite, compiled for every step that has the
 * sequencer (LOCKSTEP_STEP >= 6; earlier steps report the suite skipped).
 *
 * Queued operations (sequencer_bodies.h) log the order their bodies run in,
 * count overlaps, and record when and where their maker ran. The runner's
 * fixture adds to every case: it ends with no live allocation.
 *
 * Failure messages name the README section that explains the rule:
 * steps/06-sequencer/README.md.
 */
#include "check_main.h"
#include "race.h"
#include "sequencer_bodies.h"
#include "task_bodies.h"

#include "lockstep/alloc.h"
#include "lockstep/executor.h"
#include "lockstep/sequencer.h"
#include "lockstep/task.h"
#include "lockstep/trigger.h"

#include <errno.h>
#include <signal.h>
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

static task_sequencer g_seq;

static void seq_init(task_sequencer *seq)
{
    ck_assert_int_eq(task_sequencer_init(seq), 0);
}

/* Queues `op` with no executor; the queue call must succeed. */
static simple_task queue_op(task_sequencer *seq, seq_op *op)
{
    simple_task t = {0};
    int err = task_sequencer_queue(seq, seq_op_maker, op, NULL, &t);
    ck_assert_msg(err == 0, "queueing op %d failed with %d", op->id, err);
    ck_assert_ptr_nonnull(t.m_promise);
    return t;
}

/* The result of a task that must have completed; releases it. */
static task_result take_result(simple_task *t, const char *what)
{
    ck_assert_msg(task_has_completed(t), "%s: the task has not completed", what);
    task_result r = simple_task_await_resume(t);
    simple_task_release(t);
    return r;
}

/* The log says ops 0..n-1 entered in order, one at a time. */
static void assert_in_order(const seq_log *log, size_t n)
{
    ck_assert_msg(log->n == n, "%zu bodies ran, expected %zu", log->n, n);
    for (size_t k = 0; k < n; ++k)
        if (log->order[k] != (int)k) /* ck_assert per element is slow: it records the line each time */
            ck_assert_msg(0, "body %zu to run was op %d, expected op %zu (see " README ", 'The idea')", k,
                          log->order[k], k);
    ck_assert_msg(atomic_load(&log->overlaps) == 0, "%u bodies started while another was running (see " README
                  ", 'The idea')", atomic_load(&log->overlaps));
}

/* ---- the cases -------------------------------------------------------------- */

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

/* ---- errata 6: an allocation failure in the queue call ------------------------
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
                  "chain wedged (errata 6, see " README ", 'Errata this step fixes')",
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
    ck_assert_msg(busy_failures == 2 && idle_failures == 2,
                  "expected the node and the task frame to be the queue call's allocations (2 each), saw %llu "
                  "(busy) and %llu (idle)", (unsigned long long)busy_failures, (unsigned long long)idle_failures);
}
END_TEST

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

/* ---- errata 5: a backlog drains in bounded stack -------------------------------
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
                  "(errata 5, see " README ", 'Bounded stack')", run.n, run.spread);
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
        ck_assert_int_eq(task_sequencer_queue(&g_seq, backlog_maker, &ops[i], &ex, &t), 0);
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
                  "stack: they nest (errata 5, see " README ", 'Bounded stack')", n, spread);
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

/* ---- a maker must not block on what it queued ------------------------------
 * A maker runs inside its thread's drain: a task it queues on an idle
 * sequencer joins the thread's run queue and starts only when the maker has
 * returned. Waiting for that task from the maker (simple_task_wait) would
 * hang for ever; the wait asserts instead, naming what to do. The case runs
 * in a child process and checks that the child died of SIGABRT with that
 * message. An alarm ends a child whose wait hangs (a copy without the
 * assert), so the case fails instead of hanging: the deadlock, not a
 * timing. */
#define HANG_SECONDS 30 /* the wait either asserts at once or never returns */
#define WAIT_ASSERT_TEXT "simple_task_wait from a task_sequencer maker (this thread drains sequenced tasks) would hang"

typedef struct waiting_maker_ctx {
    task_sequencer other; /* idle: what the maker queues joins the run queue */
    seq_op inner;
    simple_task inner_task;
} waiting_maker_ctx;

/* Only the assert build runs it (NDEBUG: the case below skips, the wait would
 * hang), and an unused static function is an error under -Werror. */
#ifndef NDEBUG
static int waiting_maker(void *ctx, simple_task *task)
{
    waiting_maker_ctx *w = ctx;
    if (task_sequencer_queue(&w->other, seq_op_maker, &w->inner, NULL, &w->inner_task) != 0)
        return ENOMEM;
    (void)task;
    simple_task_wait(&w->inner_task); /* the misuse: asserts (or hangs) */
    return EINVAL;                    /* not reached: the child exits 0 and the case fails */
}
#endif

START_TEST(maker_waiting_for_a_task_it_queued_asserts)
{
#ifdef NDEBUG
    lockstep_skip_after_checks("built with NDEBUG: assertions are off, so the wait would hang");
#else
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ne(pid, -1);
    if (pid == 0) { /* the child: the misuse, with its stderr into the pipe */
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        signal(SIGALRM, SIG_DFL); /* Check's own handler would kill the whole process group */
        alarm(HANG_SECONDS);      /* a hang is the bug this case is about; the parent reports it */
        int order[1];
        seq_log log;
        seq_log_init(&log, order, 1);
        waiting_maker_ctx w;
        seq_op_init(&w.inner, &log, 1, task_value(1));
        task_sequencer_init(&w.other);
        task_sequencer seq;
        task_sequencer_init(&seq);
        simple_task t = {0};
        task_sequencer_queue(&seq, waiting_maker, &w, NULL, &t); /* idle: the maker runs now, in a drain */
        _exit(0);                                                  /* not reached if the wait asserts */
    }
    close(fds[1]);
    char err[2048];
    size_t n = 0;
    for (ssize_t got; n < sizeof err - 1 && (got = read(fds[0], err + n, sizeof err - 1 - n)) != 0;)
        if (got > 0)
            n += (size_t)got;
        else if (errno != EINTR)
            break;
    err[n] = '\0';
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) == -1)
        ck_assert_int_eq(errno, EINTR);
    ck_assert_msg(!(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM),
                  "a maker waited for a task it had queued on an idle sequencer, and the wait hung for %d s: the "
                  "task sits in the maker's own run queue (see " README ", 'Bounded stack')", HANG_SECONDS);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
                  "a maker's wait for a task it queued should assert (SIGABRT); the child ended with status 0x%x "
                  "(see " README ", 'Bounded stack')", (unsigned)status);
    ck_assert_msg(strstr(err, WAIT_ASSERT_TEXT) != NULL,
                  "the assert should say what is wrong and what to do (\"" WAIT_ASSERT_TEXT " ...\"); stderr "
                  "was: %s", err);
    printf("the child aborted with: %s", err);
#endif
}
END_TEST

/* What the assert suggests instead: the maker hands the task it queued out
 * as its body, and the wrapper awaits it. */
static int handing_maker(void *ctx, simple_task *task)
{
    waiting_maker_ctx *w = ctx;
    return task_sequencer_queue(&w->other, seq_op_maker, &w->inner, NULL, task);
}

START_TEST(maker_hands_out_a_task_it_queued)
{
    int order[1];
    seq_log log;
    seq_log_init(&log, order, 1);
    waiting_maker_ctx w;
    seq_op_init(&w.inner, &log, 7, task_value(7));
    seq_init(&w.other);
    seq_init(&g_seq);
    simple_task t = {0};
    ck_assert_int_eq(task_sequencer_queue(&g_seq, handing_maker, &w, NULL, &t), 0);
    task_result r = take_result(&t, "a task whose body was queued by its maker on another sequencer");
    ck_assert_msg(r.error == 0 && r.value == 7, "it completed with {%d, %ld}, expected {0, 7}", r.error,
                  (long)r.value);
    ck_assert_int_eq(w.inner.made, 1);
    task_sequencer_destroy(&g_seq);
    task_sequencer_destroy(&w.other);
}
END_TEST

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

/* ---- destroy against the last task's completion on another thread -----------------
 * The only task's body waits on a trigger that a second thread fires, so it
 * completes there, and this thread destroys the sequencer: whichever of
 * complete() and the destroy's abandon() is second frees the node. Odd
 * iterations destroy first, even ones second; the two threads order their
 * steps with relaxed flags only, so nothing but the sequencer's own
 * exchanges orders the free after the other side's exchange. Under
 * ThreadSanitizer a missing acquire (destroy second) or release (destroy
 * first) in abandon() is then reported as a race on the node. */
typedef struct relaxed_firer {
    lockstep_trigger trig;
    atomic_uint armed; /* release/acquire: iteration i's trigger is armed */
    atomic_uint fire;  /* relaxed: fire iteration i now */
    atomic_uint fired; /* release: iteration i has fired */
    unsigned iterations;
} relaxed_firer;

static void *relaxed_firer_main(void *arg)
{
    relaxed_firer *f = arg;
    for (unsigned i = 1; i <= f->iterations; ++i) {
        race_wait_for(&f->armed, i);
        race_wait_relaxed(&f->fire, i);
        lockstep_trigger_fire(&f->trig);
        atomic_store_explicit(&f->fired, i, memory_order_release);
    }
    return NULL;
}

START_TEST(destroy_races_completion)
{
    relaxed_firer f;
    lockstep_trigger_init(&f.trig);
    atomic_init(&f.armed, 0);
    atomic_init(&f.fire, 0);
    atomic_init(&f.fired, 0);
    f.iterations = (unsigned)(lockstep_iterations(100000) / 5);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, relaxed_firer_main, &f), 0);
    seq_log log;
    seq_log_init(&log, NULL, 0);
    unsigned destroy_freed = 0;
    for (unsigned i = 1; i <= f.iterations; ++i) {
        seq_op op;
        seq_op_init(&op, &log, 0, task_value((intptr_t)i));
        op.trig = &f.trig;
        task_sequencer seq;
        task_sequencer_init(&seq);
        simple_task t = {0};
        int err = task_sequencer_queue(&seq, seq_op_maker, &op, NULL, &t); /* arms the trigger */
        race_publish(&f.armed, i);
        bool destroy_first = i % 2;
        if (!destroy_first) {
            atomic_store_explicit(&f.fire, i, memory_order_relaxed);
            race_wait_relaxed(&f.fired, i);
        }
        uint64_t frees = lockstep_alloc_thread().frees;
        task_sequencer_destroy(&seq);
        destroy_freed += lockstep_alloc_thread().frees != frees; /* destroy came second */
        if (destroy_first)
            atomic_store_explicit(&f.fire, i, memory_order_relaxed);
        race_wait_for(&f.fired, i);
        ck_assert_int_eq(err, 0);
        ck_assert_int_eq(take_result(&t, "destroy against completion").value, (intptr_t)i);
    }
    pthread_join(th, NULL);
    printf("destroy came second (and freed the node) %u of %u times\n", destroy_freed, f.iterations);
}
END_TEST

int main(int argc, char **argv)
{
    const char *why = "the task_sequencer arrives in step 06";
    const lockstep_case cases[] = { /* automatic: START_TEST names are pointer variables */
        {first_task_runs_at_once, 6, why, 0,
         "the first task queued on an idle sequencer runs at once",
         "steps/06-sequencer/README.md, \"The idea\""},
        {strict_order_with_mixed_bodies, 6, why, 0,
         "tasks run one after another in queue order, synchronous and suspending bodies mixed; each maker runs only after the previous body has left",
         "steps/06-sequencer/README.md, \"The idea\""},
        {results_and_errors_propagate, 6, why, 0,
         "each returned task completes with its body's result or error",
         "steps/06-sequencer/README.md, \"Errata this step fixes\" (complete is the last act)"},
        {maker_failure_completes_the_task_with_its_error, 6, why, 0,
         "a maker that fails completes the returned task with its error, and the chain goes on",
         "steps/06-sequencer/README.md, \"Errata this step fixes\" (complete is the last act)"},
        {alloc_failure_in_queue_leaves_the_chain_working, 6, why, 0,
         "each allocation of a queue call failing in turn gives ENOMEM, links and leaks nothing, and the next task still runs",
         "steps/06-sequencer/README.md, \"Errata this step fixes\" (errata 6)"},
        {release_before_the_task_starts, 6, why, 0,
         "releasing a returned task before it starts does not skip it",
         "steps/06-sequencer/README.md, \"Errata this step fixes\" (lifetimes)"},
        {destroy_with_tasks_pending, 6, why, 0,
         "destroying the sequencer with tasks pending neither cancels nor waits: they run in order, everything is freed",
         "steps/06-sequencer/README.md, \"The idea\""},
        {executor_hop_runs_the_maker_on_the_executor, 6, why, 0,
         "with an executor, the maker runs on the executor's thread",
         "steps/06-sequencer/README.md, \"From C++ to C\""},
        {backlog_drains_in_bounded_stack, 6, why, 0,
         "a 1,000,000-task backlog drains on a 64 KiB stack, every maker at the same depth",
         "steps/06-sequencer/README.md, \"Bounded stack\""},
        {backlog_on_an_executor_drains_in_bounded_stack, 6, why, 0,
         "the same backlog through an executor drains in bounded stack",
         "steps/06-sequencer/README.md, \"Bounded stack\""},
        {awaiter_chain_drains_in_bounded_stack, 6, why, 0,
         "a chain of 100,000 awaiters, each with a successor queued, completes on a 64 KiB stack",
         "steps/06-sequencer/README.md, \"Bounded stack\""},
        {queue_from_inside_a_task, 6, why, 0,
         "a task body that queues on the sequencer runs the new task after itself",
         "steps/06-sequencer/README.md, \"The idea\""},
        {maker_waiting_for_a_task_it_queued_asserts, 6, why, 0,
         "a maker that blocks (simple_task_wait) on a task it queued on an idle sequencer gets an assert saying what to do, not a hang",
         "steps/06-sequencer/README.md, \"Bounded stack\""},
        {maker_hands_out_a_task_it_queued, 6, why, 0,
         "a maker may hand out a task it queued on another sequencer as its body: the wrapper completes with its result",
         "steps/06-sequencer/README.md, \"Bounded stack\""},
        {queues_race_from_several_threads, 6, why, 0,
         "queues from several threads: no two bodies overlap, each thread's tasks keep their order, each runs once",
         "steps/06-sequencer/README.md, \"Memory orders\""},
        {destroy_races_completion, 6, why, 0,
         "destroy against the last task completing on another thread: whichever is second frees the node, once",
         "steps/06-sequencer/README.md, \"Memory orders\""},
    };
    return lockstep_check_main("sequencer", LOCKSTEP_STEP, cases, sizeof cases / sizeof cases[0], argc, argv);
}
