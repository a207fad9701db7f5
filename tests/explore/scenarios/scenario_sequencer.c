/*
 * Scenarios for task_sequencer, compiled for every step that has it, like
 * tests/unit/test_sequencer.c.
 *
 * A queued operation is sequencer_bodies.h's seq_op: its maker creates a
 * body that logs its entry (the order, and any overlap with another body)
 * and completes with the op's value, at once, or, for the gate op G, when
 * the completer fires G's trigger. G is queued in setup, on the main thread,
 * so every scenario starts on a busy sequencer: the completer's thread
 * finishes the running task while the other threads queue behind it.
 *
 * The queue call allocates a node and the wrapper frame (the returned task),
 * the maker a body frame, all where the scenario cannot see them: they are
 * named before the call (explore_name_next_alloc), so the trace says
 * `node B`, `task B`, `body B`, and a wrapper resumed after its free is
 * reported. From step 09 the node is in the wrapper frame (`task B`).
 * What each op did is counted outside the frames.
 *
 * Nothing continues before what it waits for, on every schedule: a maker
 * runs only once the body before it has left and been freed (`sequencer
 * order`, below), body G continues past its co_await only once the gate was
 * fired, and a coroutine awaiting a task the sequencer handed out continues
 * only once that op's body has returned its value (`continued before
 * completion`, await_queued_task). The bodies are sequencer_bodies.h's, with
 * a flag where each returns its value (the same atomic operations, so the
 * same traces).
 */
#include "explore.h"

#include "lockstep/alloc.h"
#include "lockstep/event.h"
#include "lockstep/executor.h"
#include "lockstep/sequencer.h"
#include "lockstep/task.h"
#include "lockstep/trigger.h"
#include "sequencer_bodies.h"
#include "task_bodies.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const explore_component = "sequencer";
const int explore_step = LOCKSTEP_STEP;

/* A node's `next` and a task's `m_waiting`, as the step's README names them. */
bool explore_decode(const char *field, const volatile void *obj, uintptr_t v, char *buf, size_t size)
{
    (void)obj;
    const char *name = explore_name_of((const void *)v);
    if (strcmp(field, "next") == 0) {
        if (v == 0)
            snprintf(buf, size, "NULL");
        else if (v == 1)
            snprintf(buf, size, "completed()");
        else if (v == 2)
            snprintf(buf, size, "abandoned()");
        else
            snprintf(buf, size, "%s", name ? name : "a task");
    } else if (strcmp(field, "m_latest") == 0) {
        snprintf(buf, size, "%s", v == 0 ? "NULL (idle)" : name ? name : "a node");
    } else if (strcmp(field, "m_state") == 0) { /* step 09: flags, and the frame behind (or an operand) */
        uintptr_t link = v & ~(uintptr_t)7;
        const char *behind = explore_name_of((const void *)link);
        snprintf(buf, size, "%s%s%s%s%s%s", v == 0 ? "nothing yet" : "", v & 1 ? "COMPLETED" : "",
                 (v & 1) && (v & 6) ? "|" : "", v & 2 ? "AWAITED" : "", (v & 2) && (v & 4) ? "|" : "",
                 v & 4 ? "RELEASED" : "");
        if (link)
            snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", v & 7 ? "|" : "",
                     link == ~(uintptr_t)7 ? "ABANDONED" : behind ? behind : "a task");
    } else if (strcmp(field, "m_waiting") == 0) {
        if (v == 0)
            snprintf(buf, size, "running");
        else if (v == 1)
            snprintf(buf, size, "completed");
        else if (v == 2)
            snprintf(buf, size, "abandoned");
        else
            snprintf(buf, size, "awaiter %s", name ? name : "?");
    } else {
        return false;
    }
    return true;
}

/* ---- the ops ---------------------------------------------------------------- */

enum { GATE, MAX_OPS = 4 };

static const char *const g_op_names[MAX_OPS] = {"G", "A", "B", "C"};
#ifndef LOCKSTEP_SEQUENCER_NODE_IN_FRAME
static const char *const g_node_names[MAX_OPS] = {"node G", "node A", "node B", "node C"};
#endif
static const char *const g_task_names[MAX_OPS] = {"task G", "task A", "task B", "task C"};
static const char *const g_body_names[MAX_OPS] = {"body G", "body A", "body B", "body C"};

/* A scenario's state, one value: every callback gets it as its context
 * (explore.h), zeroed before the search. */
typedef struct sequencer_context {
    task_sequencer seq;
    bool seq_destroyed;
    lockstep_trigger gate;
    seq_log log;
    int order[MAX_OPS];
    seq_op ops[MAX_OPS];
    simple_task tasks[MAX_OPS];
    int errs[MAX_OPS];      /* what each queue call returned */
    bool queued[MAX_OPS];   /* the scenario queued it (whether or not that failed) */
    int thread[MAX_OPS];    /* which thread queued it (EXPLORE_MAIN: main) */
    int queue_seq[MAX_OPS]; /* its place among its thread's queue calls */
    int nqueued[EXPLORE_MAX_THREADS + 1]; /* queue calls per thread, main last */
    int made_on[MAX_OPS];   /* the thread its maker ran on */
    const void *bodies[MAX_OPS]; /* its body's frame */
    bool released[MAX_OPS]; /* its task was released at once (fire and forget) */
    int pending_at_destroy; /* of A and B, how many had not run when the sequencer was destroyed */
    bool gate_fired;        /* the completer is firing the gate (up just before the call) */
    bool returned[MAX_OPS]; /* its body has run simple_promise_return_value */

    /* Over all the schedules of a scenario: how the tasks behind G were started. */
    long by_queue_call; /* by their own queue call (continue_with took out completed()) */
    long by_completion; /* by the task before them completing on another thread */
    long destroys[4];   /* by pending_at_destroy */
    long destroys_on[2]; /* queue_vs_queue_vs_completion_then_destroy's destroy ran on T1, on T2 */

    /* A coroutine awaiting a task the sequencer handed out. */
    driver_frame *awaiter;
    int awaited;         /* the op whose task the awaiter owns, or -1 */
    long await_paths[4]; /* over all schedules, by enum await_path */
    int awaiting_thread; /* the thread inside the awaiter's co_await, or -1 */

    /* The destroy after the last queue call. */
    awaitable_event c_queued;
    int destroyed_on; /* the thread that ran the destroy, or -1 */

    /* An awaiter destroyed while suspended. */
    lockstep_trigger gate_a;
    awaitable_event awaiter_gone;
    bool a_started_at_destroy;
    bool awaiter_destroyed;     /* T1 has destroyed the awaiter (before it sets awaiter gone) */
    long awaiter_destroys[2];   /* over all schedules: A's start not before the destroy (happens-before), before it */

    /* Tasks that hop onto an executor, whose two workers are threads of the schedule. */
    lockstep_executor ex;
    task_result waited;         /* the owner's simple_task_wait for task B */
    long made_on_workers[2][2]; /* over all schedules: maker A ran on worker 1 or 2, maker B on 1 or 2 */
} sequencer_context;

const size_t explore_context_size = sizeof(sequencer_context);

/* Its fields, for the trace: a race on one names it (explore.h). */
const explore_field explore_context_fields[] = {
    {offsetof(sequencer_context, seq), sizeof ((sequencer_context *)0)->seq, "seq"},
    {offsetof(sequencer_context, seq_destroyed), sizeof ((sequencer_context *)0)->seq_destroyed, "seq_destroyed"},
    {offsetof(sequencer_context, gate), sizeof ((sequencer_context *)0)->gate, "gate"},
    {offsetof(sequencer_context, log), sizeof ((sequencer_context *)0)->log, "log"},
    {offsetof(sequencer_context, order), sizeof ((sequencer_context *)0)->order, "order"},
    {offsetof(sequencer_context, ops), sizeof ((sequencer_context *)0)->ops, "ops"},
    {offsetof(sequencer_context, tasks), sizeof ((sequencer_context *)0)->tasks, "tasks"},
    {offsetof(sequencer_context, errs), sizeof ((sequencer_context *)0)->errs, "errs"},
    {offsetof(sequencer_context, queued), sizeof ((sequencer_context *)0)->queued, "queued"},
    {offsetof(sequencer_context, thread), sizeof ((sequencer_context *)0)->thread, "thread"},
    {offsetof(sequencer_context, queue_seq), sizeof ((sequencer_context *)0)->queue_seq, "queue_seq"},
    {offsetof(sequencer_context, nqueued), sizeof ((sequencer_context *)0)->nqueued, "nqueued"},
    {offsetof(sequencer_context, made_on), sizeof ((sequencer_context *)0)->made_on, "made_on"},
    {offsetof(sequencer_context, bodies), sizeof ((sequencer_context *)0)->bodies, "bodies"},
    {offsetof(sequencer_context, released), sizeof ((sequencer_context *)0)->released, "released"},
    {offsetof(sequencer_context, pending_at_destroy),
     sizeof ((sequencer_context *)0)->pending_at_destroy, "pending_at_destroy"},
    {offsetof(sequencer_context, gate_fired), sizeof ((sequencer_context *)0)->gate_fired, "gate_fired"},
    {offsetof(sequencer_context, returned), sizeof ((sequencer_context *)0)->returned, "returned"},
    {offsetof(sequencer_context, by_queue_call), sizeof ((sequencer_context *)0)->by_queue_call, "by_queue_call"},
    {offsetof(sequencer_context, by_completion), sizeof ((sequencer_context *)0)->by_completion, "by_completion"},
    {offsetof(sequencer_context, destroys), sizeof ((sequencer_context *)0)->destroys, "destroys"},
    {offsetof(sequencer_context, destroys_on), sizeof ((sequencer_context *)0)->destroys_on, "destroys_on"},
    {offsetof(sequencer_context, awaiter), sizeof ((sequencer_context *)0)->awaiter, "awaiter"},
    {offsetof(sequencer_context, awaited), sizeof ((sequencer_context *)0)->awaited, "awaited"},
    {offsetof(sequencer_context, await_paths), sizeof ((sequencer_context *)0)->await_paths, "await_paths"},
    {offsetof(sequencer_context, awaiting_thread),
     sizeof ((sequencer_context *)0)->awaiting_thread, "awaiting_thread"},
    {offsetof(sequencer_context, c_queued), sizeof ((sequencer_context *)0)->c_queued, "c_queued"},
    {offsetof(sequencer_context, destroyed_on), sizeof ((sequencer_context *)0)->destroyed_on, "destroyed_on"},
    {offsetof(sequencer_context, gate_a), sizeof ((sequencer_context *)0)->gate_a, "gate_a"},
    {offsetof(sequencer_context, awaiter_gone), sizeof ((sequencer_context *)0)->awaiter_gone, "awaiter_gone"},
    {offsetof(sequencer_context, a_started_at_destroy),
     sizeof ((sequencer_context *)0)->a_started_at_destroy, "a_started_at_destroy"},
    {offsetof(sequencer_context, awaiter_destroyed),
     sizeof ((sequencer_context *)0)->awaiter_destroyed, "awaiter_destroyed"},
    {offsetof(sequencer_context, awaiter_destroys),
     sizeof ((sequencer_context *)0)->awaiter_destroys, "awaiter_destroys"},
    {offsetof(sequencer_context, ex), sizeof ((sequencer_context *)0)->ex, "ex"},
    {offsetof(sequencer_context, waited), sizeof ((sequencer_context *)0)->waited, "waited"},
    {offsetof(sequencer_context, made_on_workers),
     sizeof ((sequencer_context *)0)->made_on_workers, "made_on_workers"},
};
const size_t explore_context_nfields = sizeof explore_context_fields / sizeof explore_context_fields[0];

/* An op's scenario, from the op: the step's code calls its maker and
 * resumes its body with nothing else. Every op logs to the context's log
 * (make_sequencer), so the context is the struct around op->log; the
 * assert says the op is one of that context's. */
static sequencer_context *op_context(const seq_op *op)
{
    sequencer_context *c = (sequencer_context *)((char *)op->log - offsetof(sequencer_context, log));
    assert(op >= c->ops && op < c->ops + MAX_OPS && "an op logs to its own context's log (make_sequencer)");
    return c;
}

/* seq_body_resume, with the checks where the body continues and the flag
 * where it returns its value. */
static lockstep_coro *checked_seq_body_resume(lockstep_coro *self)
{
    seq_body_frame *f = (seq_body_frame *)self;
    seq_op *op = f->op;
    sequencer_context *c = op_context(op);
    switch (self->resume_point) {
    case 0:
        seq_body_enter(op);
        self->resume_point = 1;
        if (op->trig && !lockstep_trigger_await_ready(op->trig) && lockstep_trigger_await_suspend(op->trig, self))
            return NULL;
        /* fall through */
    case 1:
        if (op->trig && !c->gate_fired)
            explore_fail("continued before fire", "body %s continued past its co_await on the gate, which nobody "
                         "had fired", g_op_names[op->id]);
        seq_body_leave(op);
        simple_promise_return_value(&f->promise, op->result);
        c->returned[op->id] = true;
        return simple_promise_final_suspend(&f->promise);
    }
    return NULL; /* not reached: a finished task is never resumed */
}

/* seq_op_maker, creating checked_seq_body_resume's body (these scenarios
 * use no executor hop and no failing maker). */
static int checked_seq_op_maker(void *ctx, simple_task *task)
{
    seq_op *op = ctx;
    ++op->made;
    op->maker_thread = pthread_self();
    op->left_before_made = op->log->last_left;
    simple_promise *p;
    int err = simple_promise_create(&p, sizeof(seq_body_frame), checked_seq_body_resume);
    if (err)
        return err;
    ((seq_body_frame *)p)->op = op;
    simple_task_start(task, p);
    return 0;
}

/* The maker: sequencer_bodies.h's, with the body named and a line in the trace. */
static int make_body(void *ctx, simple_task *task)
{
    seq_op *op = ctx;
    sequencer_context *c = op_context(op);
    c->made_on[op->id] = explore_self();
    explore_note("maker %s runs: creates and starts body %s", g_op_names[op->id], g_op_names[op->id]);
    /* The task before this one cleans up before it completes: its body is gone. */
    if (c->log.n > 0 && !explore_freed(c->bodies[c->order[c->log.n - 1]]))
        explore_fail("sequencer order", "maker %s runs while body %s, of the task before it, is still allocated: "
                     "that task completed before it released its body", g_op_names[op->id],
                     g_op_names[c->order[c->log.n - 1]]);
    explore_name_next_alloc(g_body_names[op->id], true);
    int err = checked_seq_op_maker(ctx, task);
    explore_name_next_alloc(NULL, false);
    c->bodies[op->id] = task->m_promise;
    return err;
}

/* Queues op `id`, its task to hop onto executor ex (NULL: none) before
 * its maker runs; fail_nth: which allocation of the call fails (0: none). */
static void queue_op_on(sequencer_context *c, int id, uint64_t fail_nth, lockstep_executor *ex)
{
    c->queued[id] = true;
    c->thread[id] = explore_self();
    c->queue_seq[id] = c->nqueued[explore_self()]++;
    if (fail_nth)
        explore_note("queue %s, with lockstep_alloc_fail_nth(%d)", g_op_names[id], (int)fail_nth);
    else
        explore_note("queue %s", g_op_names[id]);
#ifndef LOCKSTEP_SEQUENCER_NODE_IN_FRAME
    explore_name_next_alloc(g_node_names[id], false);
#endif
    explore_name_next_alloc(g_task_names[id], true);
    lockstep_alloc_fail_nth(fail_nth);
    c->errs[id] = task_sequencer_queue(&c->seq, make_body, &c->ops[id], ex, &c->tasks[id]);
    lockstep_alloc_fail_none();
    explore_name_next_alloc(NULL, false);
    if (c->errs[id])
        explore_note("queue %s returned %s", g_op_names[id], c->errs[id] == ENOMEM ? "ENOMEM" : "an error");
}

static void queue_op(sequencer_context *c, int id, uint64_t fail_nth) { queue_op_on(c, id, fail_nth, NULL); }

/* ---- a coroutine awaiting a task the sequencer handed out ----------------------
 *
 * task_bodies.h's driver: `result = co_await task; release(task);`. Its
 * on_continue checks, where it continues past its co_await, whichever path
 * the await took, that the op's body has returned its value. */

static void check_awaiter_continues(driver_frame *f)
{
    const sequencer_context *c = f->ctx;
    int id = c->awaited;
#if TASK_IS_LAZY
    /* Step 08: the await hands over to the task's own coroutine, which hands
     * back at once, inside the await, if the task had completed: the ready
     * path's counterpart. */
    int inside; /* asked of happens-before, not peeked: T1's writes below, in its own program order */
    if (explore_read_settled(&c->awaiting_thread, &inside) && inside == explore_self())
        f->path = PATH_READY;
#endif
    if (f->path == PATH_SUSPENDED)
        explore_note("the awaiter of task %s continues (resumed by its completion)", g_op_names[id]);
    if (!c->returned[id])
        explore_fail("continued before completion", "the awaiter of task %s continued past its co_await (%s) "
                     "before body %s had returned its value", g_op_names[id],
                     f->path == PATH_READY ? "await_ready said completed"
                     : f->path == PATH_LATE ? "await_suspend returned false: it did not suspend"
                                            : "resumed after it suspended",
                     g_op_names[id]);
}

/* Setup: G runs at once (an idle sequencer) and suspends on the gate.
 * Every op is initialized here to log to c->log, and to nothing else:
 * op_context finds the scenario's context from op->log alone (its body is
 * resumed by the step's code, with nothing but its frame). */
static void make_sequencer(void *ctx)
{
    sequencer_context *c = ctx;
    explore_name_fields(); /* `next of node B`: every node has a `next` */
    task_sequencer_init(&c->seq);
    c->seq_destroyed = false;
    lockstep_trigger_init(&c->gate);
    seq_log_init(&c->log, c->order, MAX_OPS);
    memset(c->nqueued, 0, sizeof c->nqueued);
    for (int i = 0; i < MAX_OPS; ++i) {
        seq_op_init(&c->ops[i], &c->log, i, (task_result){0, 10 + i}); /* c->log: op_context relies on it */
        c->tasks[i] = (simple_task){0};
        c->errs[i] = 0;
        c->queued[i] = false;
        c->released[i] = false;
        c->made_on[i] = -1;
        c->bodies[i] = NULL;
        c->returned[i] = false;
    }
    c->gate_fired = false;
    c->awaiter = NULL;
    c->awaited = -1;
    c->awaiting_thread = -1;
    c->ops[GATE].trig = &c->gate;
    queue_op(c, GATE, 0);
    if (c->errs[GATE] || !c->gate.waiter)
        explore_fail("setup", "could not queue the gate op G, or its body did not suspend on the gate");
}

/* ---- the threads -------------------------------------------------------------- */

static void complete_gate(void *ctx)
{
    sequencer_context *c = ctx;
    explore_note("fire the gate: body G completes");
    c->gate_fired = true;
    lockstep_trigger_fire(&c->gate);
}

static void queue_a_then_b(void *ctx) { queue_op(ctx, 1, 0); queue_op(ctx, 2, 0); }

/* Queues A, then awaits task A with a coroutine that owns it from then on. */
static void queue_a_then_await(void *ctx)
{
    sequencer_context *c = ctx;
    queue_op(c, 1, 0);
    if (c->errs[1])
        return;
    c->awaiter = driver_create(c->tasks[1]);
    if (!c->awaiter)
        explore_fail("setup", "could not make the awaiter");
    explore_name_coro(c->awaiter, "awaiter of A");
    c->awaiter->on_continue = check_awaiter_continues;
    c->awaiter->ctx = c;
    c->awaited = 1;
    c->tasks[1] = (simple_task){0};
    explore_note("the awaiter: co_await task A");
    /* Plain writes, read by check_awaiter_continues with explore_read_settled:
     * on this thread they are in program order before the read; on another,
     * whether they are settled or not, the answer is "not this thread". */
    c->awaiting_thread = explore_self();
    lockstep_coro_resume(&c->awaiter->coro);
    c->awaiting_thread = -1;
}
static void queue_c(void *ctx) { queue_op(ctx, 3, 0); }

/* A: the node's allocation fails; B: the wrapper frame's; C: none. From
 * step 09 the frame is the call's one allocation (the node is in it): it
 * fails for both A and B. */
#ifdef LOCKSTEP_SEQUENCER_NODE_IN_FRAME
enum { FRAME_ALLOC = 1 };
#else
enum { FRAME_ALLOC = 2 };
#endif

/* failing_alloc_vs_completion's sentence, as this step's queue call allocates. */
#ifdef LOCKSTEP_SEQUENCER_NODE_IN_FRAME
static const char g_failing_alloc_about[] = "T0 completes the running task G while T1 queues A (its frame's allocation "
                                            "fails), B (the same), then C";
#else
static const char g_failing_alloc_about[] = "T0 completes the running task G while T1 queues A (its node's allocation "
                                            "fails), B (its task's allocation fails), then C";
#endif

static void queue_with_failures(void *ctx)
{
    sequencer_context *c = ctx;
    queue_op(c, 1, 1);
    queue_op(c, 2, FRAME_ALLOC);
    queue_op(c, 3, 0);
}

/* Queues A and B, then releases A: it still runs, then frees itself. */
static void queue_a_b_release_a(void *ctx)
{
    sequencer_context *c = ctx;
    queue_op(c, 1, 0);
    queue_op(c, 2, 0);
    explore_note("release task A (fire and forget: it still runs, then frees itself)");
    simple_task_release(&c->tasks[1]);
    c->released[1] = true;
}

/* Of ops 1..n (A, B, C), how many bodies had not run before the destroy:
 * not run at all, or run on another thread but not happening before it.
 * Happens-before, not the schedule: T0 may be writing `made` now, and a
 * peek at it (explore_unchecked) would make the destroy dependent on every
 * step, and the search try every order of them (1,074 schedules for 108
 * executions in queue_vs_queue_vs_completion_then_destroy, 197 this way). */
static int pending(const sequencer_context *c, int n)
{
    int count = 0;
    for (int id = 1; id <= n; ++id) {
        int made;
        if (!explore_read_settled(&c->ops[id].made, &made) || made == 0)
            ++count;
    }
    return count;
}

static void queue_a_b_then_destroy(void *ctx)
{
    sequencer_context *c = ctx;
    queue_a_b_release_a(c);
    c->pending_at_destroy = pending(c, 2);
    explore_note("destroy the sequencer (%d of A and B still to run)", c->pending_at_destroy);
    task_sequencer_destroy(&c->seq);
    c->seq_destroyed = true;
}

/* Queues A and B, releases both, then destroys the sequencer. From step 09
 * the newest frame (B's) is also the returned task's, so three holders let
 * go of it: B's owner, here, first; then B's lambda on T0 and the destroy
 * on T1, in either order, and whichever is last frees it. */
static void queue_a_b_release_both_then_destroy(void *ctx)
{
    sequencer_context *c = ctx;
    queue_a_b_release_a(c);
    explore_note("release task B too: it still runs, then frees itself");
    simple_task_release(&c->tasks[2]);
    c->released[2] = true;
    c->pending_at_destroy = pending(c, 2);
    explore_note("destroy the sequencer (%d of A and B still to run)", c->pending_at_destroy);
    task_sequencer_destroy(&c->seq);
    c->seq_destroyed = true;
}

/* ---- the checks ----------------------------------------------------------------- */

/* Position of op `id` in the bodies' log, or -1. */
static int log_position(const sequencer_context *c, int id)
{
    for (size_t k = 0; k < c->log.n && k < MAX_OPS; ++k)
        if (c->order[k] == id)
            return (int)k;
    return -1;
}

/* The sequencer's invariants, after every thread has finished:
 * - every op queued successfully ran its maker exactly once, a failed one
 *   never; its task completed with its body's value;
 * - bodies ran one at a time, each maker only after the body before it had
 *   left, and the ops of one thread in the order it queued them. */
static void check_sequencer(void *ctx)
{
    sequencer_context *c = ctx;
    for (int i = 0; i < MAX_OPS; ++i) {
        const seq_op *op = &c->ops[i];
        const char *n = g_op_names[i];
        if (!c->queued[i])
            continue;
        if (c->errs[i]) {
            if (c->errs[i] != ENOMEM || c->tasks[i].m_promise)
                explore_fail("wrong value", "queue %s failed with %d and %s a task; expected ENOMEM and no task",
                             n, c->errs[i], c->tasks[i].m_promise ? "handed out" : "no");
            if (op->made)
                explore_fail("wrong value", "queue %s failed, yet its maker ran", n);
            continue;
        }
        explore_culprit(c->tasks[i].m_promise); /* --graph: its frame's publication, and its resumes */
        if (op->made == 0)
            explore_fail("lost wake-up", "task %s never ran: every thread has finished and its maker was never "
                         "called, so the chain is wedged and nobody will ever start it", n);
        if (op->made > 1)
            explore_fail("resumed twice", "maker %s ran %d times", n, op->made);
        if (i != GATE && c->made_on[i] == c->thread[i])
            ++c->by_queue_call;
        else if (i != GATE)
            ++c->by_completion;
        if (c->released[i] || i == c->awaited)
            continue; /* released, or the awaiter's (check_awaiter) */
        if (!task_has_completed(&c->tasks[i]))
            explore_fail("lost wake-up", "task %s has not completed, though every thread has finished", n);
        task_result r = simple_task_await_resume(&c->tasks[i]);
        if (r.error || r.value != op->result.value)
            explore_fail("wrong value", "task %s completed with {%d, %ld}, expected its body's {0, %ld}", n,
                         r.error, (long)r.value, (long)op->result.value);
        simple_task_release(&c->tasks[i]);
    }
    if (atomic_load_explicit(&c->log.overlaps, memory_order_relaxed))
        explore_fail("sequencer order", "a body started while another was running");
    for (size_t k = 1; k < c->log.n; ++k) {
        const seq_op *op = &c->ops[c->order[k]];
        if (op->left_before_made != c->order[k - 1])
            explore_fail("sequencer order", "maker %s ran before body %s had left", g_op_names[op->id],
                         g_op_names[c->order[k - 1]]);
    }
    for (int i = 0; i < MAX_OPS; ++i)
        for (int j = 0; j < MAX_OPS; ++j)
            if (c->queued[i] && c->queued[j] && !c->errs[i] && !c->errs[j] && c->thread[i] == c->thread[j] &&
                c->queue_seq[i] < c->queue_seq[j] && log_position(c, i) > log_position(c, j))
                explore_fail("sequencer order", "body %s ran before body %s, which its thread queued first",
                             g_op_names[j], g_op_names[i]);
    if (log_position(c, GATE) != 0)
        explore_fail("sequencer order", "body G, queued before the threads started, did not run first");
    if (c->seq_destroyed)
        ++c->destroys[c->pending_at_destroy];
    else
        task_sequencer_destroy(&c->seq);
}

/* The awaiter finished its await once, with A's value; then the sequencer's checks. */
static void check_awaiter(void *ctx)
{
    sequencer_context *c = ctx;
    driver_frame *f = c->awaiter;
    if (f) {
        int id = c->awaited;
        const char *n = g_op_names[id];
        explore_culprit(f);
        if (f->finished > 1 || f->resumed_when_done)
            explore_fail("resumed twice", "the awaiter of task %s finished its await %d times and was resumed %d "
                         "times after its end", n, f->finished, f->resumed_when_done);
        if (f->finished == 0)
            explore_fail("lost wake-up", "the awaiter of task %s is still suspended, and every thread has finished: "
                         "nobody will ever resume it", n);
        if (f->result.error || f->result.value != c->ops[id].result.value)
            explore_fail("wrong value", "the awaiter of task %s got {%d, %ld}, expected its body's {0, %ld}", n,
                         f->result.error, (long)f->result.value, (long)c->ops[id].result.value);
        ++c->await_paths[f->path];
        lockstep_coro_destroy(&f->coro);
        c->awaiter = NULL;
    }
    check_sequencer(c);
}

/* ---- over all schedules: both ways of starting a task were reached ----------- */

static void reset_counts(void *ctx)
{
    sequencer_context *c = ctx;
    c->by_queue_call = c->by_completion = 0;
    memset(c->destroys, 0, sizeof c->destroys);
    memset(c->await_paths, 0, sizeof c->await_paths);
    memset(c->destroys_on, 0, sizeof c->destroys_on);
}

static void paths_summary(void *ctx)
{
    sequencer_context *c = ctx;
    printf("explore: a task behind G was started by the completion of the task before it, on another thread, "
           "%ld times, and by its own queue call (the task before it had completed) %ld times\n",
           c->by_completion, c->by_queue_call);
    if (!c->by_completion || !c->by_queue_call) {
        printf("explore: FAILED (coverage): both ways of starting a task should be reached\n");
        exit(1);
    }
}

static void destroy_summary(void *ctx)
{
    sequencer_context *c = ctx;
    paths_summary(c);
    printf("explore: the sequencer was destroyed with both A and B still to run in %ld schedules, one in %ld, "
           "none in %ld\n", c->destroys[2], c->destroys[1], c->destroys[0]);
    if (!c->destroys[2] || !c->destroys[1] || !c->destroys[0]) {
        printf("explore: FAILED (coverage): destroy should come before, between and after A and B\n");
        exit(1);
    }
}

static void await_summary(void *ctx)
{
    sequencer_context *c = ctx;
    paths_summary(c);
    printf("explore: the awaiter's await took the ready path in %ld schedules, suspended in %ld, late in %ld\n",
           c->await_paths[PATH_READY], c->await_paths[PATH_SUSPENDED], c->await_paths[PATH_LATE]);
    if (!c->await_paths[PATH_READY] || !c->await_paths[PATH_SUSPENDED]) {
        printf("explore: FAILED (coverage): the awaiter should both find task A completed and suspend on it\n");
        exit(1);
    }
}

/* ---- a backlog, drained in constant stack -----------------------------------------
 *
 * A, B and C are queued behind G in the setup; T0 then completes G, and the
 * three run one after another on T0. The sequencer drains its run queue in
 * a loop (erratum 5's fix): however long the backlog, the step's code nests
 * the same few trampolines (a queued task's start, its maker's body). The
 * article's code resumes each successor inside the one before: one more
 * level per queued task, a stack overflow at a million. */
enum { BACKLOG_NESTING = 2 }; /* one task's run: the drain resumes it, its maker starts its body */

static void make_backlog(void *ctx)
{
    sequencer_context *c = ctx;
    make_sequencer(c);
    for (int id = 1; id < MAX_OPS; ++id)
        queue_op(c, id, 0);
}

static void check_backlog(void *ctx)
{
    sequencer_context *c = ctx;
    if (explore_resume_nesting() > BACKLOG_NESTING)
        explore_fail("stack grows", "draining a backlog of %d tasks nested %d trampolines: each task's successor "
                     "was resumed inside it, so the C stack grows with the backlog (erratum 5; "
                     "steps/06-sequencer/README.md, \"Bounded stack\")", MAX_OPS - 1, explore_resume_nesting());
    check_sequencer(c);
}

/* ---- the destroy after the last queue call, on two queuing threads -----------
 *
 * T1 queues A and B and releases A, T2 queues C: the destroy may run only
 * once both are done queueing ("no task_sequencer_queue() concurrently"),
 * and the caller's own synchronization must order them before it. Here that
 * is an awaitable_event of the step: T2 sets it after queueing C, and T1's
 * destroyer coroutine awaits it, then destroys the sequencer. Whichever of
 * the two threads comes second runs the destroy (set() resumes the
 * destroyer on T2), and the event's set/await orders C's queue call before
 * it, as the contract asks of the caller. */
typedef struct destroyer_frame {
    lockstep_coro coro;
    awaitable_event_awaiter aw;
    sequencer_context *c; /* the scenario's: set() resumes the frame with nothing else */
} destroyer_frame;


static void destroy_pending(void *ctx)
{
    sequencer_context *c = ctx;
    c->pending_at_destroy = pending(c, 3);
    explore_note("destroy the sequencer (%d of A, B and C still to run)", c->pending_at_destroy);
    task_sequencer_destroy(&c->seq);
    c->seq_destroyed = true;
    c->destroyed_on = explore_self();
}

static lockstep_coro *destroyer_resume(lockstep_coro *self)
{
    destroyer_frame *f = (destroyer_frame *)self;
    sequencer_context *c = f->c;
    switch (self->resume_point) {
    case 0:
        self->resume_point = 1;
        if (!awaitable_event_await_ready(&c->c_queued, &f->aw) &&
            awaitable_event_await_suspend(&c->c_queued, &f->aw, self))
            return NULL;
        /* fall through */
    case 1:
        if (!c->queued[3] || c->nqueued[2] == 0)
            explore_fail("continued before set", "the destroyer continued past its co_await before C was queued");
        destroy_pending(c);
        lockstep_coro_free(self);
        return NULL;
    }
    return NULL;
}

static void destroyer_destroy(lockstep_coro *self) { lockstep_coro_free(self); }

static void make_destroy_after_queues(void *ctx)
{
    sequencer_context *c = ctx;
    make_sequencer(c);
    c->destroyed_on = -1;
    if (awaitable_event_init(&c->c_queued) != 0)
        explore_fail("setup", "could not make the event");
    explore_name(&c->c_queued, "C queued");
}

static void queue_a_b_then_destroy_after_c(void *ctx)
{
    sequencer_context *c = ctx;
    queue_a_b_release_a(c);
    lockstep_coro *d = lockstep_coro_new(sizeof(destroyer_frame), destroyer_resume, destroyer_destroy);
    if (!d)
        explore_fail("setup", "could not make the destroyer");
    ((destroyer_frame *)d)->c = c;
    explore_name_coro(d, "destroyer");
    explore_note("the destroyer: co_await C queued, then destroy the sequencer");
    lockstep_coro_resume(d);
}

static void queue_c_then_signal(void *ctx)
{
    sequencer_context *c = ctx;
    queue_op(c, 3, 0);
    explore_note("set C queued");
    awaitable_event_set(&c->c_queued);
}

static void check_destroy_after_queues(void *ctx)
{
    sequencer_context *c = ctx;
    if (!c->seq_destroyed)
        explore_fail("lost wake-up", "the destroyer never ran: it is still suspended on `C queued`, and every "
                     "thread has finished");
    ++c->destroys_on[c->destroyed_on == 2];
    check_sequencer(c);
    awaitable_event_destroy(&c->c_queued);
}

static void destroy_after_queues_summary(void *ctx)
{
    sequencer_context *c = ctx;
    paths_summary(c);
    printf("explore: the destroy ran on T1 (C queued before its await) in %ld schedules, on T2 (inside set()) in "
           "%ld\n", c->destroys_on[0], c->destroys_on[1]);
    if (!c->destroys_on[0] || !c->destroys_on[1]) {
        printf("explore: FAILED (coverage): the destroy should run on either queuing thread\n");
        exit(1);
    }
    printf("explore: the sequencer was destroyed with three of A, B and C still to run in %ld schedules, two in "
           "%ld, one in %ld, none in %ld\n", c->destroys[3], c->destroys[2], c->destroys[1], c->destroys[0]);
    if (!c->destroys[0] || !(c->destroys[1] + c->destroys[2] + c->destroys[3])) {
        printf("explore: FAILED (coverage): destroy should come both before and after the pending tasks ran\n");
        exit(1);
    }
}

/* ---- an awaiter destroyed while suspended, against G's completion ------------
 *
 * Erratum 1 on a sequenced task: T1 queues A (its body waits on gate A),
 * awaits task A with a coroutine and destroys that coroutine while it is
 * suspended, which releases task A; T0 meanwhile completes G, which starts
 * A. A coroutine must not be destroyed while something may resume it, so A
 * may complete only after the destroy: T1 then sets `awaiter gone`, and
 * T0's gate firer, which awaits that event, fires gate A (on T0, or on T1
 * inside set()); the event orders body A's arming of gate A before the
 * fire. A's end always finds the awaiter gone: it must not resume it (the
 * explorer traps the resume of the freed awaiter), and A's frame must still
 * be freed (the leak check). */

static void reset_awaiter_destroys(void *ctx)
{
    sequencer_context *c = ctx;
    reset_counts(c);
    memset(c->awaiter_destroys, 0, sizeof c->awaiter_destroys);
}

static void make_gated_a(void *ctx)
{
    sequencer_context *c = ctx;
    make_sequencer(c);
    lockstep_trigger_init(&c->gate_a);
    c->ops[1].trig = &c->gate_a;
    c->awaiter_destroyed = false;
    if (awaitable_event_init(&c->awaiter_gone) != 0)
        explore_fail("setup", "could not make the event");
    explore_name(&c->awaiter_gone, "awaiter gone");
}

/* co_await awaiter gone; fire gate A (a destroyer_frame: a coroutine and its awaiter). */
static lockstep_coro *gate_a_firer_resume(lockstep_coro *self)
{
    destroyer_frame *f = (destroyer_frame *)self;
    sequencer_context *c = f->c;
    switch (self->resume_point) {
    case 0:
        self->resume_point = 1;
        if (!awaitable_event_await_ready(&c->awaiter_gone, &f->aw) &&
            awaitable_event_await_suspend(&c->awaiter_gone, &f->aw, self))
            return NULL;
        /* fall through */
    case 1:
        if (!c->awaiter_destroyed)
            explore_fail("continued before set", "the gate firer continued past its co_await before the awaiter "
                         "was destroyed");
        explore_note("fire gate A: body A completes");
        lockstep_coro_free(self);
        lockstep_trigger_fire(&c->gate_a);
        return NULL;
    }
    return NULL;
}

static void complete_gate_then_fire_a(void *ctx)
{
    sequencer_context *c = ctx;
    complete_gate(c);
    lockstep_coro *d = lockstep_coro_new(sizeof(destroyer_frame), gate_a_firer_resume, destroyer_destroy);
    if (!d)
        explore_fail("setup", "could not make the gate firer");
    ((destroyer_frame *)d)->c = c;
    explore_name_coro(d, "gate A firer");
    explore_note("the gate firer: co_await awaiter gone, then fire gate A");
    lockstep_coro_resume(d);
}

static void queue_a_await_then_destroy_awaiter(void *ctx)
{
    sequencer_context *c = ctx;
    queue_a_then_await(c);
    if (!c->awaiter)
        explore_fail("setup", "could not queue A");
    /* Whether body A had started, as happens-before says (pending() says
     * why not a peek): A started on this thread (inside the queue call, the
     * sequencer idle), or on T0 in an order this thread's operations saw. */
    int made;
    c->a_started_at_destroy = explore_read_settled(&c->ops[1].made, &made) && made != 0;
    explore_note("destroy the awaiter, suspended on task A (A %s): it releases task A",
                 c->a_started_at_destroy ? "has started" : "has not started");
    lockstep_coro_destroy(&c->awaiter->coro);
    c->awaiter = NULL;
    c->awaiter_destroyed = true;
    explore_note("set awaiter gone");
    awaitable_event_set(&c->awaiter_gone);
}

static void check_awaiter_destroyed(void *ctx)
{
    sequencer_context *c = ctx;
    ++c->awaiter_destroys[c->a_started_at_destroy];
    check_sequencer(c);
    awaitable_event_destroy(&c->awaiter_gone);
}

static void awaiter_destroyed_summary(void *ctx)
{
    sequencer_context *c = ctx;
    paths_summary(c);
    printf("explore: the awaiter was destroyed before task A started (or unordered with its start) in %ld "
           "schedules, after it in %ld\n",
           c->awaiter_destroys[0], c->awaiter_destroys[1]);
    if (!c->awaiter_destroys[0] || !c->awaiter_destroys[1]) {
        printf("explore: FAILED (coverage): the destroy should come both before and after A started\n");
        exit(1);
    }
}

/* ---- completions that hop through an executor ---------------------------------------
 *
 * The article's `co_await context`: a task queued with an executor hops
 * onto it before its maker runs, so its maker, its body and its completion
 * (which starts the task behind it) run on a worker. The executor is
 * common's: a mutex, a condition variable and two workers it creates with
 * pthread_create, which are threads of the schedule (T2, T3), so which
 * worker a post wakes, a spurious wake-up of either, and their races with
 * the completer and the owner are all explored. The owner waits for task B
 * as a plain thread does (simple_task_wait: a mutex and a condition
 * variable of its own) and releases it, then destroys the executor, which
 * stops and joins its workers. */
enum { WORKER_1 = 2, WORKER_2 = 3 }; /* the workers' thread numbers: after the scenario's two */

static void queue_hop_a_b_wait_b_destroy(void *ctx)
{
    sequencer_context *c = ctx;
    explore_note("lockstep_executor_init: two workers");
    int err = lockstep_executor_init(&c->ex, 2);
    if (err)
        explore_fail("setup", "lockstep_executor_init failed with %d", err);
    queue_op_on(c, 1, 0, &c->ex);
    queue_op_on(c, 2, 0, &c->ex);
    explore_note("simple_task_wait(task B)");
    c->waited = simple_task_wait(&c->tasks[2]);
    if (!c->returned[2])
        explore_fail("continued before completion", "simple_task_wait(task B) returned before body B had returned "
                     "its value");
    simple_task_release(&c->tasks[2]); /* waited for: the owner lets go of it (check_sequencer skips it) */
    c->released[2] = true;
    explore_note("lockstep_executor_destroy: its workers stop and are joined");
    lockstep_executor_destroy(&c->ex);
}

/* Both makers ran on a worker, never on the thread that queued them or
 * completed the task before; then the sequencer's checks. */
static void check_hops(void *ctx)
{
    sequencer_context *c = ctx;
    for (int id = 1; id <= 2; ++id) {
        if (c->made_on[id] != WORKER_1 && c->made_on[id] != WORKER_2)
            explore_fail("no hop", "maker %s ran on T%d, not on one of the executor's workers (T2, T3): its task "
                         "did not hop onto the executor it was queued with", g_op_names[id], c->made_on[id]);
    }
    ++c->made_on_workers[c->made_on[1] - WORKER_1][c->made_on[2] - WORKER_1];
    if (c->waited.error || c->waited.value != c->ops[2].result.value)
        explore_fail("wrong value", "simple_task_wait(task B) returned {%d, %ld}, expected {0, %ld}", c->waited.error,
                     (long)c->waited.value, (long)c->ops[2].result.value);
    check_sequencer(c);
}

static void reset_hops(void *ctx)
{
    sequencer_context *c = ctx;
    reset_counts(c);
    memset(c->made_on_workers, 0, sizeof c->made_on_workers);
}

static void hops_summary(void *ctx)
{
    sequencer_context *c = ctx;
    long (*w)[2] = c->made_on_workers;
    printf("explore: makers A and B ran on workers 1 and 1 in %ld schedules, 1 and 2 in %ld, 2 and 1 in %ld, "
           "2 and 2 in %ld\n", w[0][0], w[0][1], w[1][0], w[1][1]);
    if (!w[0][0] || !w[0][1] || !w[1][0] || !w[1][1]) {
        printf("explore: FAILED (coverage): each maker should run on each worker, on the same one as the other "
               "and on the other one\n");
        exit(1);
    }
}

/* One scenario per line that starts with `{.name = "x",`: CMake registers a test per name; main.c
 * decides from min_step and max_step whether it applies to this step. */
const explore_scenario explore_scenarios[] = {
    {.name = "queue_vs_queue_vs_completion", .min_step = 6,
     .about = "T0 completes the running task G while T1 queues A then B, and T2 queues C",
     .nthreads = 3, .thread_names = {"completer", "queues A, B", "queues C"},
     .threads = {complete_gate, queue_a_then_b, queue_c},
     .begin = reset_counts, .setup = make_sequencer, .check = check_sequencer, .summary = paths_summary},
    {.name = "failing_alloc_vs_completion", .min_step = 6,
     .about = g_failing_alloc_about,
     .nthreads = 2, .thread_names = {"completer", "queuer"}, .threads = {complete_gate, queue_with_failures},
     .begin = reset_counts, .setup = make_sequencer, .check = check_sequencer, .summary = paths_summary},
    {.name = "destroy_with_tasks_pending", .min_step = 6,
     .about = "T0 completes the running task G while T1 queues A and B, releases A, then destroys the sequencer",
     .nthreads = 2, .thread_names = {"completer", "owner"}, .threads = {complete_gate, queue_a_b_then_destroy},
     .begin = reset_counts, .setup = make_sequencer, .check = check_sequencer, .summary = destroy_summary},
    {.name = "destroy_with_all_released", .min_step = 9,
     .about = "T0 completes the running task G while T1 queues A and B, releases both, then destroys the sequencer",
     .nthreads = 2, .thread_names = {"completer", "owner"}, .threads = {complete_gate, queue_a_b_release_both_then_destroy},
     .begin = reset_counts, .setup = make_sequencer, .check = check_sequencer, .summary = destroy_summary},
    {.name = "backlog_drains_flat", .min_step = 6,
     .about = "A, B and C wait behind G; T0 completes G: they run in turn, in constant stack",
     .nthreads = 1, .thread_names = {"completer"}, .threads = {complete_gate},
     .begin = reset_counts, .setup = make_backlog, .check = check_backlog},
    {.name = "await_queued_task", .min_step = 6,
     .about = "T0 completes the running task G while T1 queues A and awaits task A: it continues only after body A",
     .nthreads = 2, .thread_names = {"completer", "queues A, awaits it"}, .threads = {complete_gate, queue_a_then_await},
     .begin = reset_counts, .setup = make_sequencer, .check = check_awaiter, .summary = await_summary},
    {.name = "awaiter_destroyed_vs_completion", .min_step = 6,
     .about = "T0 completes the running task G while T1 queues A, awaits task A and destroys the suspended "
              "awaiter; A completes only after that: its end must not resume the destroyed awaiter",
     .nthreads = 2, .thread_names = {"completer, then fires gate A", "queues A, awaits it, destroys the awaiter"},
     .threads = {complete_gate_then_fire_a, queue_a_await_then_destroy_awaiter}, .begin = reset_awaiter_destroys,
     .setup = make_gated_a, .check = check_awaiter_destroyed, .summary = awaiter_destroyed_summary},
    {.name = "queue_vs_queue_vs_completion_then_destroy", .min_step = 6,
     .about = "T0 completes the running task G while T1 queues A then B and releases A, and T2 queues C; the "
              "sequencer is destroyed once both are done queueing",
     .nthreads = 3, .thread_names = {"completer", "queues A, B; the destroyer", "queues C"},
     .threads = {complete_gate, queue_a_b_then_destroy_after_c, queue_c_then_signal},
     .begin = reset_counts, .setup = make_destroy_after_queues, .check = check_destroy_after_queues,
     .summary = destroy_after_queues_summary},
    {.name = "completions_hop_through_executor", .min_step = 6,
     .about = "T0 completes the running task G while T1 makes an executor of two workers (T2, T3), queues A and B "
              "to hop onto it, waits for task B and destroys the executor",
     .nthreads = 2, .thread_names = {"completer", "owner", "worker 1", "worker 2"},
     .threads = {complete_gate, queue_hop_a_b_wait_b_destroy},
     .begin = reset_hops, .setup = make_sequencer, .check = check_hops, .summary = hops_summary},
};
const size_t explore_nscenarios = sizeof explore_scenarios / sizeof explore_scenarios[0];
