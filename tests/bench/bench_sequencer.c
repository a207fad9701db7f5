/*
 * bench_sequencer.c -- the task_sequencer workloads: sequencer_chain/K and
 * sequencer_backlog/K (steps that have the sequencer; bench.c says what
 * their timed regions hold).
 */
#include "bench.h"
#if LOCKSTEP_HAS_SEQUENCER
#include "task_bodies.h"

#include "lockstep/sequencer.h"
#include "lockstep/task.h"
#include "lockstep/trigger.h"

#include <stdlib.h>
#include <string.h>
#endif

#if LOCKSTEP_HAS_SEQUENCER

/* The queued operation's body: completes synchronously, checks strict order
 * (C++: seq_op(st, i) { st.errors += st.next != i; st.next = i + 1; co_return i; }). */
typedef struct seq_state {
    size_t next, errors;
} seq_state;

/* The maker's context: what the peer's lambda [&st, i] captures. */
typedef struct seq_op_ctx {
    seq_state *st;
    size_t i;
} seq_op_ctx;

typedef struct seq_op_frame {
    simple_promise promise;
    seq_state *st;
    size_t i;
} seq_op_frame;

static lockstep_coro *seq_op_body(lockstep_coro *self)
{
    seq_op_frame *f = (seq_op_frame *)self;
    f->st->errors += f->st->next != f->i;
    f->st->next = f->i + 1;
    simple_promise_return_value(&f->promise, task_value((intptr_t)f->i));
    return simple_promise_final_suspend(&f->promise);
}

static int seq_op_maker(void *ctx, simple_task *task)
{
    seq_op_ctx *c = ctx;
    simple_promise *p;
    int err = simple_promise_create(&p, sizeof(seq_op_frame), seq_op_body);
    if (err)
        return err;
    seq_op_frame *f = (seq_op_frame *)p;
    f->st = c->st;
    f->i = c->i;
    simple_task_start(task, p);
    return 0;
}

/* The gate: holds the sequencer until the harness fires it. */
static int seq_gate_maker(void *ctx, simple_task *task)
{
    return triggered_task(task, ctx, task_value(-1));
}

/* The driver: queues K operations (the gate first, if any), releasing each
 * task but the last, then awaits the last. */
typedef struct seq_driver {
    lockstep_coro coro;
    task_sequencer *seq;
    seq_state *st;
    seq_op_ctx *ctx; /* K contexts, one per queued operation */
    size_t i, k;
    lockstep_trigger *gate;
    simple_task t;
    intptr_t last;
} seq_driver;

static lockstep_coro *seq_driver_resume(lockstep_coro *self)
{
    seq_driver *f = (seq_driver *)self;
    lockstep_coro *next;
    switch (self->resume_point) {
    case 0:
        if (f->gate) {
            if (task_sequencer_queue(f->seq, seq_gate_maker, f->gate, NULL, &f->t) != 0)
                die("out of memory");
            simple_task_release(&f->t); /* released while pending */
        }
        for (f->i = 0; f->i < f->k; ++f->i) {
            simple_task_release(&f->t);
            f->ctx[f->i] = (seq_op_ctx){f->st, f->i};
            if (task_sequencer_queue(f->seq, seq_op_maker, &f->ctx[f->i], NULL, &f->t) != 0)
                die("out of memory");
        }
        self->resume_point = 1;
        if (!simple_task_await_ready(&f->t) && task_await_suspend(&f->t, self, &next))
            return next;
        /* fall through */
    case 1:
        f->last = simple_task_await_resume(&f->t).value;
        simple_task_release(&f->t);
    }
    return driver_finish(self);
}

/* One round: a fresh sequencer (untimed), then timed: queue K ops, fire the
 * gate if any, await the last. Rounds are repeated until N ops are done. */
static sample sequencer_run(size_t k, size_t n, bool backlog)
{
    size_t rounds = n / k > 0 ? n / k : 1;
    seq_op_ctx *ctx = malloc(k * sizeof *ctx);
    if (!ctx)
        die("out of memory");
    double ns = 0, allocs = 0;
    bool ok = true;
    for (size_t r = 0; r < rounds; ++r) {
        task_sequencer seq;
        if (task_sequencer_init(&seq) != 0)
            die("task_sequencer_init failed");
        seq_state st = {0, 0};
        lockstep_trigger gate;
        lockstep_trigger_init(&gate);
        seq_driver *d = (seq_driver *)lockstep_coro_new(sizeof *d, seq_driver_resume, lockstep_coro_free);
        if (!d)
            die("out of memory");
        d->seq = &seq; /* the rest is zeroed by lockstep_coro_new */
        d->st = &st;
        d->ctx = ctx;
        d->k = k;
        d->gate = backlog ? &gate : NULL;
        d->last = -2;
        meter m;
        meter_start(&m);
        lockstep_coro_resume(&d->coro);
        if (backlog)
            lockstep_trigger_fire(&gate);
        sample one = meter_stop(&m, k);
        ns += one.ns_per_op;
        allocs += one.allocs_per_op;
        ok = ok && lockstep_coro_done(&d->coro) && d->last == (intptr_t)k - 1 && st.errors == 0 && st.next == k;
        lockstep_coro_destroy(&d->coro);
        task_sequencer_destroy(&seq);
    }
    free(ctx);
    sample s;
    memset(&s, 0, sizeof s);
    s.ns_per_op = ns / (double)rounds;
    s.allocs_per_op = allocs / (double)rounds;
    s.ok = ok;
    if (rounds > 1)
        add_note(&s, "%zu rounds of %zu ops;", rounds, k);
    return s;
}

sample sequencer_chain(size_t k, size_t n)
{
    return sequencer_run(k, n, false);
}

sample sequencer_backlog(size_t k, size_t n)
{
    return sequencer_run(k, n, true);
}
#endif
