/*
 * bench.c -- the lockstep benchmark, one source compiled for every step.
 *
 * The workloads (what each timed region holds, per op):
 *   task_ready         co_await a task that has already completed, release it
 *   task_suspend       co_await a task suspended on a trigger; the harness
 *                      fires it, the task resumes the driver, which releases it
 *   task_abandon       release a suspended task unawaited, then complete it:
 *                      it frees itself
 *   task_race          N suspended tasks (set up untimed): thread A awaits
 *                      them in order while thread B completes them in order
 *   event_fanout/K     K waiters register, set() resumes them all (per
 *                      waiter per round)
 *   sequencer_chain/K  queue K tasks on an idle sequencer: each runs at once
 *   sequencer_backlog/K  queue K tasks behind a gate task, then open the
 *                      gate: the backlog drains
 * tests/bench/cxx runs the same workloads, names, method and report line on
 * the articles' C++, so the tour prints both side by side.
 *
 *   bench_stepNN [-n N] [-r RUNS] [--st] [--trim] [--list] [NAME-SUBSTRING[$]...]
 *
 * Each run of a workload is a fresh process (this program re-executed with
 * --one NAME): an untimed warm-up pass, then the timed pass, then a result
 * check and a leak check: with address-space randomization, the layout alone
 * moves some figures between processes while runs inside one process agree.
 * Before measuring, the child starts and joins one thread: glibc skips the
 * atomics in its mutexes and malloc while a process has never had a second
 * thread, which no threaded program sees (--st skips it). It also keeps
 * freed heap memory mapped, so the timed pass reuses the warm-up's pages
 * instead of timing page faults (--trim keeps libc's default).
 *
 * Report:  name  ns_per_op  allocs_per_op  # min .. med .. max .. (R runs) notes
 * ns_per_op is the median of the runs; allocs_per_op (lockstep_alloc calls in
 * the timed region / ops) is from the last run. The exit status is non-zero
 * only if a result or leak check failed: timings never fail anything.
 *
 * The counting build (LOCKSTEP_BENCH_COUNT, the tour's bench_count_stepNN:
 * this file and the step's sources compiled with count_hook.h) adds to each
 * note what one op was made of in the timed region: "counted per op:" the
 * atomic operations, mutex locks, allocations and frees (count.h). Its
 * timings mean nothing: every operation also bumps a shared counter.
 */
#include "race.h"
#include "task_bodies.h"

#include "lockstep/alloc.h"
#include "lockstep/coro.h"
#include "lockstep/task.h"
#include "lockstep/trigger.h"
#if LOCKSTEP_HAS_EVENT
#include "lockstep/event.h"
#endif
#if LOCKSTEP_HAS_SEQUENCER
#include "lockstep/sequencer.h"
#endif

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* ======================================================================== */
/* Measuring                                                                 */
/* ======================================================================== */

typedef struct sample {
    double ns_per_op, allocs_per_op;
    bool ok;
    char note[480]; /* fixed buffer: a note must not allocate */
} sample;

static void add_note(sample *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(sample *s, const char *fmt, ...)
{
    size_t len = strlen(s->note);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->note + len, sizeof s->note - len, fmt, ap);
    va_end(ap);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the counting build: what the timed regions were made of ------------ */
#ifdef LOCKSTEP_BENCH_COUNT
#include "count.h"

/* Summed over every timed region of a pass (sequencer_run has one per round). */
typedef struct op_counts {
    uint64_t ops, allocs, frees;
    uint64_t counted[LOCKSTEP_COUNT_KINDS];
} op_counts;

static op_counts g_counts;

typedef struct counts_mark {
    uint64_t counted[LOCKSTEP_COUNT_KINDS];
} counts_mark;

static void counts_start(counts_mark *c)
{
    lockstep_count_read(c->counted);
}

static void counts_stop(const counts_mark *c, lockstep_alloc_counts a0, lockstep_alloc_counts a1, size_t ops)
{
    uint64_t now[LOCKSTEP_COUNT_KINDS];
    lockstep_count_read(now);
    for (int k = 0; k < LOCKSTEP_COUNT_KINDS; ++k)
        g_counts.counted[k] += now[k] - c->counted[k];
    g_counts.allocs += a1.allocs - a0.allocs;
    g_counts.frees += a1.frees - a0.frees;
    g_counts.ops += ops;
}

static void counts_reset(void)
{
    memset(&g_counts, 0, sizeof g_counts);
}

/* The tour parses this note (cmake/tour.cmake): keep its words. */
static void counts_note(sample *s)
{
    double ops = g_counts.ops ? (double)g_counts.ops : 1.0;
    const uint64_t *c = g_counts.counted;
    add_note(s,
             " counted per op: exchange %.4f compare_exchange %.4f fetch_op %.4f mutex %.4f cond %.4f"
             " alloc %.4f free %.4f load %.4f store %.4f;",
             (double)c[LOCKSTEP_COUNT_EXCHANGE] / ops, (double)c[LOCKSTEP_COUNT_COMPARE_EXCHANGE] / ops,
             (double)c[LOCKSTEP_COUNT_FETCH_OP] / ops, (double)c[LOCKSTEP_COUNT_MUTEX_LOCK] / ops,
             (double)c[LOCKSTEP_COUNT_COND] / ops, (double)g_counts.allocs / ops, (double)g_counts.frees / ops,
             (double)c[LOCKSTEP_COUNT_LOAD] / ops, (double)c[LOCKSTEP_COUNT_STORE] / ops);
}
#else
typedef struct counts_mark {
    char unused;
} counts_mark;
static void counts_start(counts_mark *c) { (void)c; }
static void counts_stop(const counts_mark *c, lockstep_alloc_counts a0, lockstep_alloc_counts a1, size_t ops)
{
    (void)c;
    (void)a0;
    (void)a1;
    (void)ops;
}
static void counts_reset(void) {}
static void counts_note(sample *s) { (void)s; }
#endif

/* Stopwatch + allocation counter around the timed region of one pass. */
typedef struct meter {
    uint64_t t0;
    lockstep_alloc_counts a0;
    counts_mark c0;
} meter;

static void meter_start(meter *m)
{
    m->a0 = lockstep_alloc_totals();
    counts_start(&m->c0);
    m->t0 = now_ns();
}

static sample meter_stop(const meter *m, size_t ops)
{
    uint64_t t1 = now_ns();
    lockstep_alloc_counts a1 = lockstep_alloc_totals();
    counts_stop(&m->c0, m->a0, a1, ops);
    sample s;
    memset(&s, 0, sizeof s);
    s.ok = true;
    s.ns_per_op = (double)(t1 - m->t0) / (double)ops;
    s.allocs_per_op = (double)(a1.allocs - m->a0.allocs) / (double)ops;
    return s;
}

static void die(const char *what)
{
    fprintf(stderr, "bench: %s\n", what);
    exit(3);
}

/* ======================================================================== */
/* simple_task workloads                                                     */
/* ======================================================================== */

/* A finished driver: report it done and stay put (C++: final_suspend = suspend_always). */
static lockstep_coro *driver_finish(lockstep_coro *self)
{
    self->resume_point = LOCKSTEP_CORO_DONE;
    return NULL;
}

/* The driver of task_ready and task_suspend loops
 *     sum += co_await ready_task();            (trig == NULL)
 *     sum += co_await triggered_task(trig, i); (otherwise)
 * In task_ready the task has completed before the await, which takes the
 * already-completed path. In task_suspend the harness fires the trigger; the
 * task completes and resumes the driver, which releases the task and creates
 * the next one. */
typedef struct await_driver {
    lockstep_coro coro;
    size_t i, n;
    long sum;
    lockstep_trigger *trig;
    simple_task task;
} await_driver;

static lockstep_coro *await_driver_resume(lockstep_coro *self)
{
    await_driver *f = (await_driver *)self;
    lockstep_coro *next;
    switch (self->resume_point) {
    case 0:
        for (f->i = 0; f->i < f->n; ++f->i) {
            int err = f->trig ? triggered_task(&f->task, f->trig, task_value((intptr_t)f->i))
                              : ready_task(&f->task, task_value(42));
            if (err)
                die("out of memory");
            self->resume_point = 1;
            if (!simple_task_await_ready(&f->task) && task_await_suspend(&f->task, self, &next))
                return next;
            /* fall through */
    case 1:
            f->sum += simple_task_await_resume(&f->task).value;
            simple_task_release(&f->task);
        }
    }
    return driver_finish(self);
}

static await_driver *await_driver_new(size_t n, lockstep_trigger *trig)
{
    await_driver *d = (await_driver *)lockstep_coro_new(sizeof *d, await_driver_resume, lockstep_coro_free);
    if (!d)
        die("out of memory");
    d->n = n;
    d->trig = trig;
    return d;
}

static sample task_ready(size_t n)
{
    await_driver *d = await_driver_new(n, NULL);
    meter m;
    meter_start(&m);
    lockstep_coro_resume(&d->coro);
    sample s = meter_stop(&m, n);
    s.ok = lockstep_coro_done(&d->coro) && d->sum == 42L * (long)n;
    lockstep_coro_destroy(&d->coro);
    return s;
}

static sample task_suspend(size_t n)
{
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    await_driver *d = await_driver_new(n, &trig);
    meter m;
    meter_start(&m);
    lockstep_coro_resume(&d->coro);
    for (size_t i = 0; i < n; ++i)
        lockstep_trigger_fire(&trig);
    sample s = meter_stop(&m, n);
    s.ok = lockstep_coro_done(&d->coro) && d->sum == (long)n * (long)(n - 1) / 2;
    lockstep_coro_destroy(&d->coro);
    return s;
}

/* task_abandon: the task is released while suspended; when the trigger fires
 * it completes, finds itself abandoned and frees its own frame. */
static sample task_abandon(size_t n)
{
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    int64_t live0 = lockstep_alloc_live();
    meter m;
    meter_start(&m);
    for (size_t i = 0; i < n; ++i) {
        simple_task task;
        if (triggered_task(&task, &trig, task_value((intptr_t)i)) != 0)
            die("out of memory");
        simple_task_release(&task); /* released unawaited */
        lockstep_trigger_fire(&trig);
    }
    sample s = meter_stop(&m, n);
    int64_t leaked = lockstep_alloc_live() - live0;
    s.ok = leaked == 0;
    add_note(&s, "leaked frames %lld;", (long long)leaked);
    return s;
}

/* task_race: N tasks, each suspended on its own trigger (set up untimed).
 * Timed: thread A runs a driver that awaits them in order while thread B
 * fires the triggers in order. Whoever is second on a task does the work: if
 * B completes a task that A already awaits, B resumes the driver (the driver
 * moves to thread B); if B is ahead, A takes the completed path. */
static _Thread_local int t_role; /* 1 = A, 2 = B */

typedef struct race_driver {
    lockstep_coro coro;
    size_t i, n;
    simple_task *tasks;
    size_t ready, late, bad; /* await paths taken, wrong values */
    int end_thread;
} race_driver;

static lockstep_coro *race_driver_resume(lockstep_coro *self)
{
    race_driver *f = (race_driver *)self;
    lockstep_coro *next;
    switch (self->resume_point) {
    case 0:
        for (f->i = 0; f->i < f->n; ++f->i) {
            self->resume_point = 1;
            if (simple_task_await_ready(&f->tasks[f->i])) {
                ++f->ready;
            } else {
                if (task_await_suspend(&f->tasks[f->i], self, &next))
                    return next; /* B may own the driver from here on */
                ++f->late;
            }
            /* fall through */
    case 1:
            f->bad += simple_task_await_resume(&f->tasks[f->i]).value != (intptr_t)f->i;
            simple_task_release(&f->tasks[f->i]);
        }
    }
    f->end_thread = t_role;
    return driver_finish(self);
}

typedef struct race_run {
    race_driver *driver;
    lockstep_trigger *trig;
    size_t n;
    atomic_uint arrived, go;
} race_run;

static void race_wait_go(race_run *r)
{
    atomic_fetch_add_explicit(&r->arrived, 1, memory_order_relaxed);
    race_wait_for(&r->go, 1);
}

static void *race_thread_a(void *arg)
{
    race_run *r = arg;
    t_role = 1;
    race_wait_go(r);
    lockstep_coro_resume(&r->driver->coro);
    return NULL;
}

static void *race_thread_b(void *arg)
{
    race_run *r = arg;
    t_role = 2;
    race_wait_go(r);
    for (size_t i = 0; i < r->n; ++i)
        lockstep_trigger_fire(&r->trig[i]);
    return NULL;
}

static sample task_race(size_t n)
{
    uint64_t s0 = now_ns();
    lockstep_trigger *trig = malloc(n * sizeof *trig);
    simple_task *tasks = malloc(n * sizeof *tasks);
    race_driver *d = (race_driver *)lockstep_coro_new(sizeof *d, race_driver_resume, lockstep_coro_free);
    if (!trig || !tasks || !d)
        die("out of memory");
    for (size_t i = 0; i < n; ++i) {
        lockstep_trigger_init(&trig[i]);
        if (triggered_task(&tasks[i], &trig[i], task_value((intptr_t)i)) != 0)
            die("out of memory");
    }
    d->n = n;
    d->tasks = tasks;
    uint64_t s1 = now_ns();

    race_run r = {.driver = d, .trig = trig, .n = n};
    atomic_init(&r.arrived, 0);
    atomic_init(&r.go, 0);
    pthread_t a, b;
    if (pthread_create(&a, NULL, race_thread_a, &r) != 0 || pthread_create(&b, NULL, race_thread_b, &r) != 0)
        die("cannot start threads");
    while (atomic_load_explicit(&r.arrived, memory_order_relaxed) < 2)
        sched_yield();
    meter m;
    meter_start(&m);
    race_publish(&r.go, 1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    sample s = meter_stop(&m, n);
    s.ok = lockstep_coro_done(&d->coro) && d->bad == 0;
    add_note(&s, "awaits: %zu ready, %zu late, %zu suspended; driver ended on %s; untimed setup %.1f ns/task;",
             d->ready, d->late, n - d->ready - d->late, d->end_thread == 1 ? "A" : "B",
             (double)(s1 - s0) / (double)n);
    lockstep_coro_destroy(&d->coro);
    free(tasks);
    free(trig);
    return s;
}

/* ======================================================================== */
/* awaitable_event workload                                                  */
/* ======================================================================== */
#if LOCKSTEP_HAS_EVENT

/* K waiter coroutines (frames allocated before timing) loop: await the
 * event, check FIFO order, count, park. A round = reset; resume each waiter
 * (it registers); set() resumes them all. ns/op = per waiter per round. */
typedef struct fanout_state {
    size_t counter, next_idx, order_errors, await_errors;
} fanout_state;

typedef struct fanout_waiter {
    lockstep_coro coro;
    awaitable_event *ev;
    fanout_state *st;
    size_t idx;
    awaitable_event_awaiter aw;
} fanout_waiter;

static lockstep_coro *fanout_waiter_resume(lockstep_coro *self)
{
    fanout_waiter *f = (fanout_waiter *)self;
    for (;;) {
        switch (self->resume_point) {
        case 0:
            self->resume_point = 1;
            if (!awaitable_event_await_ready(f->ev, &f->aw) && awaitable_event_await_suspend(f->ev, &f->aw, self))
                return NULL;
            /* fall through */
        case 1:
            f->st->await_errors += awaitable_event_await_resume(&f->aw) != 0;
            f->st->order_errors += f->st->next_idx != f->idx;
            f->st->next_idx = f->idx + 1;
            ++f->st->counter;
            self->resume_point = 0; /* park until the next round */
            return NULL;
        }
    }
}

static sample event_fanout(size_t k, size_t n)
{
    size_t rounds = n / k > 0 ? n / k : 1;
    awaitable_event ev;
    if (awaitable_event_init(&ev) != 0)
        die("awaitable_event_init failed");
    fanout_state st = {0, 0, 0, 0};
    fanout_waiter **waiters = malloc(k * sizeof *waiters);
    if (!waiters)
        die("out of memory");
    for (size_t i = 0; i < k; ++i) {
        waiters[i] = (fanout_waiter *)lockstep_coro_new(sizeof(fanout_waiter), fanout_waiter_resume, lockstep_coro_free);
        if (!waiters[i])
            die("out of memory");
        waiters[i]->ev = &ev;
        waiters[i]->st = &st;
        waiters[i]->idx = i;
    }

    meter m;
    meter_start(&m);
    for (size_t r = 0; r < rounds; ++r) {
        awaitable_event_reset(&ev);
        for (size_t i = 0; i < k; ++i)
            lockstep_coro_resume(&waiters[i]->coro);
        st.next_idx = 0;
        awaitable_event_set(&ev);
    }
    sample s = meter_stop(&m, rounds * k);
    s.ok = st.counter == rounds * k && st.order_errors == 0 && st.await_errors == 0;
    add_note(&s, "%zu rounds x %zu waiters; resumed FIFO: %s;", rounds, k, st.order_errors ? "no" : "yes");
    for (size_t i = 0; i < k; ++i)
        lockstep_coro_destroy(&waiters[i]->coro);
    free(waiters);
    awaitable_event_destroy(&ev);
    return s;
}
#endif

/* ======================================================================== */
/* task_sequencer workloads                                                  */
/* ======================================================================== */
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

static sample sequencer_chain(size_t k, size_t n)
{
    return sequencer_run(k, n, false);
}

static sample sequencer_backlog(size_t k, size_t n)
{
    return sequencer_run(k, n, true);
}
#endif

/* ======================================================================== */
/* The program: one process per run                                          */
/* ======================================================================== */

typedef sample (*workload_fn)(size_t k, size_t n);

typedef struct workload {
    char name[48];
    workload_fn run; /* NULL: this step lacks the component */
    size_t k;
    const char *lacks; /* why run is NULL */
} workload;

static sample w_task_ready(size_t k, size_t n) { (void)k; return task_ready(n); }
static sample w_task_suspend(size_t k, size_t n) { (void)k; return task_suspend(n); }
static sample w_task_abandon(size_t k, size_t n) { (void)k; return task_abandon(n); }
static sample w_task_race(size_t k, size_t n) { (void)k; return task_race(n); }
#if LOCKSTEP_HAS_EVENT
#define W_EVENT_FANOUT event_fanout
#define LACKS_EVENT NULL
#else
#define W_EVENT_FANOUT NULL
#define LACKS_EVENT "has no awaitable_event (it arrives in step 04)"
#endif
#if LOCKSTEP_HAS_SEQUENCER
#define W_SEQUENCER_CHAIN sequencer_chain
#define W_SEQUENCER_BACKLOG sequencer_backlog
#define LACKS_SEQUENCER NULL
#else
#define W_SEQUENCER_CHAIN NULL
#define W_SEQUENCER_BACKLOG NULL
#define LACKS_SEQUENCER "has no task_sequencer (it arrives in step 06)"
#endif

static size_t make_table(workload *t)
{
    size_t n = 0;
    t[n++] = (workload){"task_ready", w_task_ready, 0, NULL};
    t[n++] = (workload){"task_suspend", w_task_suspend, 0, NULL};
    t[n++] = (workload){"task_abandon", w_task_abandon, 0, NULL};
    /* step 08: a lazy task starts in its await, so nothing races it */
    t[n++] = (workload){"task_race", TASK_IS_LAZY ? NULL : w_task_race, 0,
                        TASK_IS_LAZY ? "has a lazy task: its completion cannot race its await" : NULL};
    static const size_t fanout[] = {1, 64, 4096, 262144};
    for (size_t i = 0; i < 4; ++i) {
        t[n] = (workload){"", W_EVENT_FANOUT, fanout[i], LACKS_EVENT};
        snprintf(t[n++].name, sizeof t[0].name, "event_fanout/%zu", fanout[i]);
    }
    static const size_t seq[] = {1000, 1000000};
    for (size_t i = 0; i < 2; ++i) {
        t[n] = (workload){"", W_SEQUENCER_CHAIN, seq[i], LACKS_SEQUENCER};
        snprintf(t[n++].name, sizeof t[0].name, "sequencer_chain/%zu", seq[i]);
    }
    for (size_t i = 0; i < 2; ++i) {
        t[n] = (workload){"", W_SEQUENCER_BACKLOG, seq[i], LACKS_SEQUENCER};
        snprintf(t[n++].name, sizeof t[0].name, "sequencer_backlog/%zu", seq[i]);
    }
    return n;
}

/* ---- child: one run of one workload --------------------------------------- */

static void *empty_thread(void *arg)
{
    return arg;
}

static int run_one(const workload *w, size_t n, bool multi_threaded, bool keep_heap)
{
#ifdef __GLIBC__
    if (keep_heap) {
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
        mallopt(M_MMAP_THRESHOLD, 1 << 30);
    }
#else
    (void)keep_heap;
#endif
    if (multi_threaded) { /* libc takes its multi-threaded paths from now on */
        pthread_t t;
        if (pthread_create(&t, NULL, empty_thread, NULL) != 0)
            die("cannot start a thread");
        pthread_join(t, NULL);
    }
    w->run(w->k, n); /* warm-up: page in the heap, warm caches and predictors */
    int64_t live0 = lockstep_alloc_live();
    counts_reset();
    sample s = w->run(w->k, n);
    int64_t leaked = lockstep_alloc_live() - live0;
    if (leaked != 0) {
        s.ok = false;
        add_note(&s, " LEAKED %lld allocations;", (long long)leaked);
    }
    counts_note(&s);
    printf("RESULT %.4f %.6f %d %s\n", s.ns_per_op, s.allocs_per_op, s.ok ? 1 : 0, s.note);
    fflush(stdout);
    return 0;
}

/* ---- parent: runs in child processes, one report line ------------------------ */

static char g_self[4096]; /* this program, to re-execute */

/* Runs this program with `args`, appending its stdout to `out`. Returns the
 * wait status, or -1 if it could not be started. */
static int run_child(char *const args[], char *out, size_t out_size)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execv(g_self, args);
        _exit(127);
    }
    close(fd[1]);
    size_t len = strlen(out);
    ssize_t got;
    while ((got = read(fd[0], out + len, out_size - 1 - len)) > 0)
        len += (size_t)got;
    out[len] = '\0';
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define MAX_RUNS 64

/* Returns false if a check failed or a child died. */
static bool measure_in_children(const char *name, int runs, char *const args[])
{
    sample v[MAX_RUNS] = {{0}}; /* runs >= 1; the zeroing quiets gcc 12's -Wmaybe-uninitialized */
    for (int r = 0; r < runs; ++r) {
        static char out[1 << 16];
        out[0] = '\0';
        int status = run_child(args, out, sizeof out);
        bool parsed = false;
        for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
            if (line[0] == '#' && r == 0)
                printf("%s\n", line);
            int ok = 0, used = 0;
            if (!parsed &&
                sscanf(line, "RESULT %lf %lf %d %n", &v[r].ns_per_op, &v[r].allocs_per_op, &ok, &used) >= 3) {
                v[r].ok = ok != 0;
                snprintf(v[r].note, sizeof v[r].note, "%s", line + used);
                parsed = true;
            }
        }
        if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !parsed) {
            if (status != -1 && WIFSIGNALED(status))
                printf("%-34s %10s %9s  # CRASHED: killed by signal %d (%s)\n", name, "CRASH", "-", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
            else
                printf("%-34s %10s %9s  # child failed (status %d)\n", name, "FAIL", "-", status);
            fflush(stdout);
            return false;
        }
    }
    double ns[MAX_RUNS];
    bool ok = true;
    double amin = v[0].allocs_per_op, amax = amin;
    for (int r = 0; r < runs; ++r) {
        ns[r] = v[r].ns_per_op;
        ok = ok && v[r].ok;
        amin = v[r].allocs_per_op < amin ? v[r].allocs_per_op : amin;
        amax = v[r].allocs_per_op > amax ? v[r].allocs_per_op : amax;
    }
    qsort(ns, (size_t)runs, sizeof ns[0], cmp_double);
    printf("%-34s %10.2f %9.4f  # min %.2f med %.2f max %.2f (%d runs)", name, ns[runs / 2], v[runs - 1].allocs_per_op,
           ns[0], ns[runs / 2], ns[runs - 1], runs);
    if (amax - amin > 1e-9)
        printf(" allocs/op varied %.4f..%.4f", amin, amax);
    for (int i = 0; i < runs; ++i) { /* each distinct note once, in run order */
        bool seen = false;
        for (int j = 0; j < i; ++j)
            seen = seen || strcmp(v[i].note, v[j].note) == 0;
        if (!seen && v[i].note[0])
            printf(" %s%s", i ? "| " : "", v[i].note);
    }
    printf("%s\n", ok ? "" : " ** CHECK FAILED **");
    fflush(stdout);
    return ok;
}

/* A filter matches as a substring; a trailing '$' anchors it at the end. */
static bool wanted(const char *name, char **filters, int nfilters)
{
    if (nfilters == 0)
        return true;
    for (int i = 0; i < nfilters; ++i) {
        size_t len = strlen(filters[i]);
        bool anchored = len > 0 && filters[i][len - 1] == '$';
        size_t want = anchored ? len - 1 : len;
        if (want == 0)
            return true;
        char pat[64];
        snprintf(pat, sizeof pat, "%.*s", (int)want, filters[i]);
        for (const char *p = strstr(name, pat); p; p = strstr(p + 1, pat))
            if (!anchored || p[want] == '\0')
                return true;
    }
    return false;
}

static void find_self(const char *argv0)
{
    if (access("/proc/self/exe", X_OK) == 0) {
        snprintf(g_self, sizeof g_self, "/proc/self/exe");
        return;
    }
    /* no /proc (macOS): argv[0], made absolute */
    char cwd[2048];
    if (argv0[0] != '/' && getcwd(cwd, sizeof cwd))
        snprintf(g_self, sizeof g_self, "%s/%s", cwd, argv0);
    else
        snprintf(g_self, sizeof g_self, "%s", argv0);
}

int main(int argc, char **argv)
{
    size_t n = 1000000;
    int runs = 5;
    bool keep_heap = true, multi_threaded = true;
    const char *one = NULL;
    char *filters[64];
    int nfilters = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "-n") == 0 && i + 1 < argc)
            n = strtoull(argv[++i], NULL, 10);
        else if (strcmp(a, "-r") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(a, "--trim") == 0)
            keep_heap = false;
        else if (strcmp(a, "--st") == 0)
            multi_threaded = false;
        else if (strcmp(a, "--one") == 0 && i + 1 < argc)
            one = argv[++i];
        else if (strcmp(a, "--list") == 0)
            one = "";
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: %s [-n N] [-r RUNS] [--st] [--trim] [--list] [NAME-SUBSTRING[$]...]\n", argv[0]);
            return 0;
        } else if (nfilters < 64)
            filters[nfilters++] = argv[i];
    }
    if (n == 0 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "bench: need N >= 1 and 1 <= RUNS <= %d\n", MAX_RUNS);
        return 2;
    }
    workload table[16];
    size_t nwork = make_table(table);

    if (one && !*one) { /* --list: every workload name, available or not */
        for (size_t i = 0; i < nwork; ++i)
            printf("%s\n", table[i].name);
        return 0;
    }
    if (one) { /* child: one run of one workload */
        for (size_t i = 0; i < nwork; ++i)
            if (strcmp(table[i].name, one) == 0 && table[i].run)
                return run_one(&table[i], n, multi_threaded, keep_heap);
        fprintf(stderr, "unknown workload %s\n", one);
        return 2;
    }

    find_self(argv[0]);
    struct rlimit rl;
    getrlimit(RLIMIT_STACK, &rl);
    char stack[32];
    if (rl.rlim_cur == RLIM_INFINITY)
        snprintf(stack, sizeof stack, "unlimited");
    else
        snprintf(stack, sizeof stack, "%lluKiB", (unsigned long long)(rl.rlim_cur >> 10));
    printf("# bench (lockstep step %s), %s\n", LOCKSTEP_STEP_NAME, "cc " __VERSION__);
    printf("# N=%zu runs=%d (one process each: warm-up pass + timed pass) libc=%s heap=%s stack-limit=%s\n", n, runs,
           multi_threaded ? "multi-threaded" : "single-threaded", keep_heap ? "kept" : "trimmed", stack);
    printf("# %-32s %10s %9s\n", "name", "ns_per_op", "allocs/op");
    fflush(stdout);

    bool all_ok = true;
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "%zu", n);
    for (size_t i = 0; i < nwork; ++i) {
        if (!wanted(table[i].name, filters, nfilters))
            continue;
        if (!table[i].run) {
            printf("%-34s %10s %9s  # step %s %s\n", table[i].name, "-", "-", LOCKSTEP_STEP_NAME, table[i].lacks);
            continue;
        }
        char *args[8] = {argv[0], "--one", table[i].name, "-n", nbuf, NULL, NULL, NULL};
        int a = 5;
        if (!multi_threaded)
            args[a++] = "--st";
        if (!keep_heap)
            args[a++] = "--trim";
        all_ok = measure_in_children(table[i].name, runs, args) && all_ok;
    }
    return all_ok ? 0 : 1;
}
