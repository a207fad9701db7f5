/*
 * Queued operations for the sequencer tests and the stress test: a maker and
 * the body task it creates, the C equivalent of
 *
 *     seq.QueueTaskAsync([&op] { return op_body(op); });
 *     simple_task<int> op_body(op& op)
 *     {
 *         enter(op.log, op.id);          // no other body may be inside
 *         if (op.trig) co_await *op.trig;            // a suspending body
 *         else if (op.hop) co_await *op.hop;         // completes on an executor
 *         leave(op.log);
 *         co_return op.result;
 *     }
 *
 * The log is written by the bodies with plain (non-atomic) stores: bodies of
 * one sequencer never overlap, and the sequencer's orders make each body
 * happen after the one before it, so under ThreadSanitizer a missing
 * release/acquire in the sequencer shows up as a data race on the log.
 * Overlap itself is counted with an atomic flag, so it is caught without a
 * sanitizer too.
 */
#ifndef LOCKSTEP_SEQUENCER_BODIES_H
#define LOCKSTEP_SEQUENCER_BODIES_H

#include "lockstep/executor.h"
#include "lockstep/sequencer.h"
#include "lockstep/task.h"
#include "lockstep/trigger.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

/* What the bodies of one sequencer record. */
typedef struct seq_log {
    atomic_int inside;     /* 1 while a body runs (between enter and leave) */
    atomic_uint overlaps;  /* bodies that entered while another was inside */
    int *order;            /* plain: order[k] = id of the k-th body to enter */
    size_t n;              /* plain: bodies entered */
    size_t capacity;
    int last_left;         /* plain: id of the last body that left, -1 before */
} seq_log;

static inline void seq_log_init(seq_log *log, int *order, size_t capacity)
{
    atomic_init(&log->inside, 0);
    atomic_init(&log->overlaps, 0);
    log->order = order;
    log->n = 0;
    log->capacity = capacity;
    log->last_left = -1;
}

/* One queued operation: the maker's context. */
typedef struct seq_op {
    seq_log *log;
    int id;
    task_result result;     /* what the body completes with */
    lockstep_trigger *trig; /* the body awaits it, or NULL */
    lockstep_executor *hop; /* the body completes on it, or NULL */
    int fail_maker;         /* nonzero: maker fails with this, creating nothing */
    int made;               /* plain: times the maker ran */
    pthread_t maker_thread; /* plain: where it ran */
    int left_before_made;   /* plain: log->last_left when the maker ran */
} seq_op;

typedef struct seq_body_frame {
    simple_promise promise;
    seq_op *op;
    lockstep_executor_awaiter aw;
} seq_body_frame;

static inline void seq_body_enter(seq_op *op)
{
    seq_log *log = op->log;
    if (atomic_exchange_explicit(&log->inside, 1, memory_order_relaxed) != 0)
        atomic_fetch_add_explicit(&log->overlaps, 1, memory_order_relaxed);
    if (log->n < log->capacity)
        log->order[log->n] = op->id;
    ++log->n;
}

static inline void seq_body_leave(seq_op *op)
{
    op->log->last_left = op->id;
    atomic_store_explicit(&op->log->inside, 0, memory_order_relaxed);
}

static inline lockstep_coro *seq_body_resume(lockstep_coro *self)
{
    seq_body_frame *f = (seq_body_frame *)self;
    seq_op *op = f->op;
    switch (self->resume_point) {
    case 0:
        seq_body_enter(op);
        self->resume_point = 1;
        if (op->trig) {
            if (!lockstep_trigger_await_ready(op->trig) && lockstep_trigger_await_suspend(op->trig, self))
                return NULL;
        } else if (op->hop) {
            if (!lockstep_executor_await_ready(op->hop) && lockstep_executor_await_suspend(op->hop, &f->aw, self))
                return NULL;
        }
        /* fall through */
    case 1:
        seq_body_leave(op);
        simple_promise_return_value(&f->promise, op->result);
        return simple_promise_final_suspend(&f->promise);
    }
    return NULL; /* not reached: a finished task is never resumed */
}

/* The maker: counts, records where it ran, creates the body. 0, ENOMEM, or
 * op->fail_maker. */
static inline int seq_op_maker(void *ctx, simple_task *task)
{
    seq_op *op = ctx;
    ++op->made;
    op->maker_thread = pthread_self();
    op->left_before_made = op->log->last_left;
    if (op->fail_maker)
        return op->fail_maker;
    simple_promise *p;
    int err = simple_promise_create(&p, sizeof(seq_body_frame), seq_body_resume);
    if (err)
        return err;
    ((seq_body_frame *)p)->op = op;
    simple_task_start(task, p);
    return 0;
}

/* Sets up `op` for `log`: a synchronous body completing with `result`. */
static inline void seq_op_init(seq_op *op, seq_log *log, int id, task_result result)
{
    op->log = log;
    op->id = id;
    op->result = result;
    op->trig = NULL;
    op->hop = NULL;
    op->fail_maker = 0;
    op->made = 0;
    op->left_before_made = -2;
}

#endif
