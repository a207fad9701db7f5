/*
 * Scenarios for simple_task, compiled once per step like tests/unit/test_task.c.
 *
 * The task body is task_bodies.h's triggered_task: it suspends on a trigger
 * at once, and firing the trigger runs it to co_return 42 (its completion).
 * The awaiter is task_bodies.h's driver: `result = co_await task;
 * release(task);`, which records which path its await took.
 *
 * On every schedule, nothing continues before what it waits for: the body
 * continues past its co_await only once the trigger has been fired, and the
 * driver continues past `co_await task` (or simple_task_wait returns) only
 * once the body has returned its value (otherwise: `continued before fire`,
 * `continued before completion`). The body and the driver are
 * task_bodies.h's, with these checks at the points where they continue (the
 * same atomic operations, so the same traces).
 *
 * Step 08's task is lazy: its body starts when awaited, so a trigger (which
 * another thread may fire only once it is armed) cannot complete it from
 * another thread. Its scenarios' body awaits step 08's awaitable_event
 * instead, which another thread may set at any time: the event's atomics
 * are then the only thing that orders the body's end, on the setter's
 * thread, after the await that started it, on the awaiter's. The scenarios
 * of the eager steps' race between completion and await are skipped there.
 */
#include "explore.h"

#include "lockstep/task.h"
#include "task_bodies.h"
#if TASK_IS_LAZY
#include "lockstep/event.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const explore_component = "task";
const int explore_step = LOCKSTEP_STEP;

/* m_waiting's values, as the step's README names them. */
bool explore_decode(const char *field, const volatile void *obj, uintptr_t v, char *buf, size_t size)
{
#if TASK_IS_LAZY
    /* step 08's task has no atomic: only the event its body awaits */
    if (strcmp(field, "state") != 0)
        return false;
    if (v == 0)
        snprintf(buf, size, "NULL (no waiters)");
    else if (v == (uintptr_t)obj)
        snprintf(buf, size, "signaled");
    else
        snprintf(buf, size, "the task body's node");
    return true;
#else
    if (strcmp(field, "m_waiting") != 0)
        return false;
    const char *name = explore_name_of((const void *)v);
    if (v == 0)
        snprintf(buf, size, "running");
    else if (LOCKSTEP_STEP >= 3 && v == 1)
        snprintf(buf, size, "completed");
    else if (LOCKSTEP_STEP >= 3 && v == 2)
        snprintf(buf, size, "abandoned");
    else if (LOCKSTEP_STEP == 2 && v == (uintptr_t)obj - offsetof(simple_promise, m_waiting))
        snprintf(buf, size, "completed (the task's own handle)");
    else if (name)
        snprintf(buf, size, "awaiter %s", name);
    else
        snprintf(buf, size, "awaiter 0x%lx", (unsigned long)v);
    return true;
#endif
}

/* ---- the pieces ------------------------------------------------------------ */

enum { CHAIN = 4 }; /* links in await_chain's chain */

/* A scenario's state, one value: every callback gets it as its context
 * (explore.h), zeroed before the search. */
typedef struct task_context {
    lockstep_trigger trig;
    simple_task task;
    driver_frame *driver;
    task_result waited;
    bool owner_done;
    long paths[4]; /* over all schedules, by enum await_path */
    /* What has happened, for the checks where something continues (plain:
     * one thread runs at a time). */
    bool fired;         /* the completer is firing the trigger (up just before the call) */
    bool body_returned; /* the body has run simple_promise_return_value */
    simple_task chain[CHAIN]; /* await_chain's links */
    /* chain_across_three_threads: task B, its frame made by the setup and
     * its body started on T1; where things continued, for the summary */
    simple_promise *b_frame;
    bool b_continued;   /* B continued past `co_await A` */
    bool b_returned;    /* B's body has run simple_promise_return_value */
    enum await_path b_path; /* the way B's await of A went */
    int b_thread;           /* the thread B continued on */
    int driver_thread;      /* the thread the driver continued on */
    long b_paths[4];        /* over all schedules, by enum await_path: B's await of A */
    long driver_paths[4];   /* the driver's await of B */
    long driver_on[3];      /* the thread the driver continued on: T0, T1, T2 */
#if TASK_IS_LAZY
    awaitable_event event; /* the event the lazy task's body awaits */
    long ends[2];          /* over all schedules: the body ended on T0 (setter), T1 (awaiter) */
#endif
} task_context;

const size_t explore_context_size = sizeof(task_context);

/* Its fields, for the trace: a race on one names it (explore.h). */
const explore_field explore_context_fields[] = {
    {offsetof(task_context, trig), sizeof ((task_context *)0)->trig, "trig"},
    {offsetof(task_context, task), sizeof ((task_context *)0)->task, "task"},
    {offsetof(task_context, driver), sizeof ((task_context *)0)->driver, "driver"},
    {offsetof(task_context, waited), sizeof ((task_context *)0)->waited, "waited"},
    {offsetof(task_context, owner_done), sizeof ((task_context *)0)->owner_done, "owner_done"},
    {offsetof(task_context, paths), sizeof ((task_context *)0)->paths, "paths"},
    {offsetof(task_context, fired), sizeof ((task_context *)0)->fired, "fired"},
    {offsetof(task_context, body_returned), sizeof ((task_context *)0)->body_returned, "body_returned"},
    {offsetof(task_context, chain), sizeof ((task_context *)0)->chain, "chain"},
    {offsetof(task_context, b_frame), sizeof ((task_context *)0)->b_frame, "b_frame"},
    {offsetof(task_context, b_continued), sizeof ((task_context *)0)->b_continued, "b_continued"},
    {offsetof(task_context, b_returned), sizeof ((task_context *)0)->b_returned, "b_returned"},
    {offsetof(task_context, b_path), sizeof ((task_context *)0)->b_path, "b_path"},
    {offsetof(task_context, b_thread), sizeof ((task_context *)0)->b_thread, "b_thread"},
    {offsetof(task_context, driver_thread), sizeof ((task_context *)0)->driver_thread, "driver_thread"},
    {offsetof(task_context, b_paths), sizeof ((task_context *)0)->b_paths, "b_paths"},
    {offsetof(task_context, driver_paths), sizeof ((task_context *)0)->driver_paths, "driver_paths"},
    {offsetof(task_context, driver_on), sizeof ((task_context *)0)->driver_on, "driver_on"},
#if TASK_IS_LAZY
    {offsetof(task_context, event), sizeof ((task_context *)0)->event, "event"},
    {offsetof(task_context, ends), sizeof ((task_context *)0)->ends, "ends"},
#endif
};
const size_t explore_context_nfields = sizeof explore_context_fields / sizeof explore_context_fields[0];

/* triggered_task_body, continuing after its co_await on the trigger, with
 * the checks: it resumed only because the trigger was fired, and from the
 * return_value on, its awaiter may see the result. */
static lockstep_coro *checked_body_resume(lockstep_coro *self)
{
    if (self->resume_point != 1)
        return triggered_task_body(self);
    triggered_task_frame *f = (triggered_task_frame *)self;
    /* The step's code resumes it with nothing else: the scenario's context
     * is the one around the trigger it awaits. */
    task_context *c = (task_context *)((char *)f->trig - offsetof(task_context, trig));
    if (!c->fired)
        explore_fail("continued before fire", "the task body continued past its co_await on the trigger, "
                     "which nobody had fired");
    simple_promise_return_value(&f->promise, f->result);
    c->body_returned = true;
    return simple_promise_final_suspend(&f->promise);
}

/* The task, its body awaiting c->trig. Every task whose body is
 * checked_body_resume awaits the trigger of its own context, c->trig, and
 * no other: the step's code resumes the body with nothing but its frame,
 * and checked_body_resume finds the context as the struct around f->trig. */
static void make_named_task(task_context *c, const char *name)
{
    lockstep_trigger_init(&c->trig);
    if (triggered_task(&c->task, &c->trig, task_value(42)) != 0)
        explore_fail("setup", "could not create the task");
    c->task.m_promise->coro.resume = checked_body_resume; /* it waits on the trigger now */
    explore_name_coro(c->task.m_promise, name);
    c->driver = NULL;
    c->owner_done = false;
    c->fired = false;
    c->body_returned = false;
}

static void make_task(void *ctx) { make_named_task(ctx, "task"); }

/* Where the driver continues past `co_await task`, whichever path its
 * await took (driver_frame's on_continue). */
static void check_driver_continues(driver_frame *f)
{
    const task_context *c = f->ctx;
    if (!c->body_returned)
        explore_fail("continued before completion", "the driver continued past `co_await task` (%s) before the "
                     "task's body had returned its value",
                     f->path == PATH_READY ? "await_ready said completed"
                     : f->path == PATH_LATE ? "await_suspend returned false: it did not suspend"
                                            : "resumed after it suspended");
}

/* The driver's resume function, with a trace line when the completion
 * resumes it (on the completer's thread). */
static lockstep_coro *noted_driver_resume(lockstep_coro *self)
{
    if (self->resume_point == 1)
        explore_note("the driver continues after its co_await (resumed by the completion)");
    return driver_resume(self);
}

/* The driver that owns c->task, with the checks where it continues. */
static void make_driver(void *ctx)
{
    task_context *c = ctx;
    c->driver = driver_create(c->task);
    if (!c->driver)
        explore_fail("setup", "could not create the driver");
    c->driver->coro.resume = noted_driver_resume;
    c->driver->on_continue = check_driver_continues;
    c->driver->ctx = c;
    explore_name_coro(c->driver, "driver");
}

static void make_task_and_driver(void *ctx)
{
    task_context *c = ctx;
    make_task(c);
    make_driver(c);
}

static void complete(void *ctx)
{
    task_context *c = ctx;
    explore_note("fire the trigger: the task body runs to co_return 42");
    c->fired = true;
    lockstep_trigger_fire(&c->trig);
}

static void await_task(void *ctx)
{
    task_context *c = ctx;
    explore_note("resume the driver: co_await task");
    lockstep_coro_resume(&c->driver->coro);
}

static const char *path_name(enum await_path p)
{
    return p == PATH_READY ? "ready" : p == PATH_SUSPENDED ? "suspended" : p == PATH_LATE ? "late" : "none";
}

/* The driver must have finished its await exactly once, with the value. */
static void check_driver(void *ctx)
{
    task_context *c = ctx;
    driver_frame *d = c->driver;
    explore_culprit(d); /* --graph: the operations that published it, and its resumes */
    if (d->finished == 0)
        explore_fail("lost wake-up", "the driver is still suspended on the task (its await took the %s path), and "
                     "every thread has finished: nobody will ever resume it", path_name(d->path));
    if (d->finished > 1 || d->resumed_when_done)
        explore_fail("resumed twice", "the driver finished its await %d times and was resumed %d times after its end",
                     d->finished, d->resumed_when_done);
    if (d->result.error || d->result.value != 42)
        explore_fail("wrong value", "the driver's await returned {%d, %ld}, expected {0, 42}", d->result.error,
                     (long)d->result.value);
    ++c->paths[d->path];
    lockstep_coro_destroy(&d->coro);
}

/* ---- completion || await ------------------------------------------------------- */

static void reset_paths(void *ctx)
{
    task_context *c = ctx;
    memset(c->paths, 0, sizeof c->paths);
}

static void completion_vs_await_summary(void *ctx)
{
    task_context *c = ctx;
    printf("explore: the driver's await took the ready path in %ld schedules, suspended in %ld, late in %ld\n",
           c->paths[PATH_READY], c->paths[PATH_SUSPENDED], c->paths[PATH_LATE]);
    if (!c->paths[PATH_READY] || !c->paths[PATH_SUSPENDED] || !c->paths[PATH_LATE]) {
        printf("explore: FAILED (coverage): every path (ready, suspended, late) should be reached\n");
        exit(1);
    }
}

/* ---- completion || release ----------------------------------------------------- */

static void release_task(void *ctx)
{
    task_context *c = ctx;
    explore_note("release the task (nobody awaits it)");
    simple_task_release(&c->task);
}

static void check_nothing(void *ctx)
{
    (void)ctx;
    /* the explorer checks the frame was freed exactly once (leak, double free) */
}

/* ---- await, then destroy the awaiter; the completion after that ----------------- */

/* Destroying a suspended coroutine is legal only while nothing can resume it,
 * so the completion waits until the owner is done: what is explored is the
 * release racing the body's suspension, and the completion after it. */
static void owner_awaits_then_destroys(void *ctx)
{
    task_context *c = ctx;
    await_task(c);
    if (!c->driver->finished) {
        explore_note("destroy the suspended driver: it releases the task");
        lockstep_coro_destroy(&c->driver->coro);
        c->driver = NULL;
    }
    c->owner_done = true;
}

static bool owner_done(void *ctx) { return ((const task_context *)ctx)->owner_done; }

static void complete_after_owner(void *ctx)
{
    task_context *c = ctx;
    explore_wait_until(owner_done, c, "the owner is done");
    complete(c);
}

static void check_destroyed(void *ctx)
{
    task_context *c = ctx;
    if (c->driver)
        check_driver(c);
}

/* ---- a plain thread waits (simple_task_wait: a mutex and a condition variable) -- */

static void wait_for_task(void *ctx)
{
    task_context *c = ctx;
    explore_note("simple_task_wait(task)");
    c->waited = simple_task_wait(&c->task);
    if (!c->body_returned) /* no scheduling point since simple_task_wait's last one */
        explore_fail("continued before completion", "simple_task_wait returned before the task's body had "
                     "returned its value");
}

static void check_waited(void *ctx)
{
    task_context *c = ctx;
    if (c->waited.error || c->waited.value != 42)
        explore_fail("wrong value", "simple_task_wait returned {%d, %ld}, expected {0, 42}", c->waited.error,
                     (long)c->waited.value);
    simple_task_release(&c->task);
}

/* ---- a chain of awaits, completed at once -------------------------------------------
 *
 * CHAIN of task_bodies.h's plus_one, each awaiting the one before, the first
 * awaiting the triggered task. Firing the trigger completes them all in a
 * row: each final_suspend hands its awaiter to the trampoline, which resumes
 * it, so the step's code never starts a trampoline inside another. A
 * final_suspend that resumed its awaiter itself would nest one level per
 * link: the C stack grows with the chain (the unit test deep_await_chain
 * measures the same at 100,000 links). */

static void make_chain(void *ctx)
{
    task_context *c = ctx;
    static const char *const names[CHAIN] = {"link 1", "link 2", "link 3", "link 4"};
    make_task(c);
    simple_task inner = c->task;
    for (int i = 0; i < CHAIN; ++i) {
        if (plus_one(&c->chain[i], inner) != 0) /* awaits inner: suspends at once */
            explore_fail("setup", "could not create link %d of the chain", i + 1);
        explore_name_coro(c->chain[i].m_promise, names[i]);
        inner = c->chain[i];
    }
    c->body_returned = true; /* the chain's links await without the driver's check */
}

/* Step 08: nothing runs until the last link is awaited. A driver's await
 * starts the chain inwards (each link's await hands over to the one before,
 * through the trampoline) down to the trigger; then the trigger is fired. */
static void await_then_complete_chain(void *ctx)
{
    task_context *c = ctx;
#if TASK_IS_LAZY
    c->driver = driver_create(c->chain[CHAIN - 1]);
    if (!c->driver)
        explore_fail("setup", "could not create the driver");
    explore_name_coro(c->driver, "driver");
    explore_note("resume the driver: co_await the last link starts the chain");
    lockstep_coro_resume(&c->driver->coro);
    if (explore_resume_nesting() > 1)
        explore_fail("stack grows", "starting a chain of %d lazy awaits nested %d trampolines: each await_suspend "
                     "started its task itself instead of returning it to the trampoline", CHAIN,
                     explore_resume_nesting());
#endif
    complete(c);
}

static void check_chain(void *ctx)
{
    task_context *c = ctx;
#if TASK_IS_LAZY
    if (!c->driver->finished)
        explore_fail("lost wake-up", "the driver awaiting the chain's last link never continued");
    task_result r = c->driver->result;
    if (r.error || r.value != 42 + CHAIN)
        explore_fail("wrong value", "the chain ended with {%d, %ld}, expected {0, %d}", r.error, (long)r.value,
                     42 + CHAIN);
    if (explore_resume_nesting() > 1)
        explore_fail("stack grows", "completing a chain of %d awaits nested %d trampolines", CHAIN,
                     explore_resume_nesting());
    lockstep_coro_destroy(&c->driver->coro);
    return;
#else
    simple_task *last = &c->chain[CHAIN - 1];
    if (!simple_task_await_ready(last))
        explore_fail("lost wake-up", "the chain's last link never completed");
    task_result r = simple_task_await_resume(last);
    if (r.error || r.value != 42 + CHAIN)
        explore_fail("wrong value", "the chain ended with {%d, %ld}, expected {0, %d}", r.error, (long)r.value,
                     42 + CHAIN);
    if (explore_resume_nesting() > 1)
        explore_fail("stack grows", "completing a chain of %d awaits nested %d trampolines: each final_suspend "
                     "resumed its awaiter itself instead of returning it to the trampoline, so the C stack grows "
                     "with the chain (erratum 5's shape; steps/01-mutex/README.md, \"From C++ to C\")", CHAIN,
                     explore_resume_nesting());
    simple_task_release(last);
#endif
}

/* ---- a chain across three threads ----------------------------------------------
 *
 *     A() { co_await trigger; co_return 42; }          fired on T0
 *     B(a) { r = co_await a; co_return r + 1; }         started on T1
 *     driver(b) { result = co_await b; release(b); }   resumed on T2
 *
 * Each awaiter continues on its own thread or on the thread of a link
 * before it: B continues on T0 when A completes after B suspended on it,
 * on T1 otherwise; the driver continues on T0 (A's completion runs B,
 * whose completion runs the driver), on T1 (B completes where it started)
 * or on T2 (B had completed when the driver looked). Every link's
 * completion hands its awaiter over through one m_waiting, and each
 * awaiter checks, where it continues, that what it awaited had returned
 * its value, and, if it suspended, that the completion of what it awaited
 * resumed it; the driver checks the value, 43.
 *
 * B's frame is made by the setup (simple_promise_create) and handed to
 * T2's driver then; T1 runs B's body from its start (simple_task_start:
 * what the coroutine call does once it has made the frame). So the
 * driver's await may come before B's body has begun: a program that passed
 * the task from T1 to T2 through a queue would order T1's start before T2's
 * await, and have only some of these executions. B is task_bodies.h's
 * plus_one, with the checks. */

typedef struct link_b_frame {
    simple_promise promise;
    simple_task inner; /* parameter: A, owned */
    task_context *c;   /* the scenario's, for the checks where B continues */
} link_b_frame;

static lockstep_coro *link_b_body(lockstep_coro *self)
{
    link_b_frame *f = (link_b_frame *)self;
    task_context *c = f->c;
    lockstep_coro *next;
    switch (self->resume_point) {
    case 0:
        self->resume_point = 1;
        if (simple_task_await_ready(&f->inner)) {
            c->b_path = PATH_READY;
        } else {
            c->b_path = PATH_SUSPENDED; /* written before self is published */
            if (task_await_suspend(&f->inner, self, &next))
                return next;
            c->b_path = PATH_LATE;
        }
        /* fall through */
    case 1: {
        if (!c->body_returned)
            explore_fail("continued before completion", "task B continued past `co_await A` on T%d before A's body "
                         "had returned its value", explore_self());
        if (c->b_path == PATH_SUSPENDED && explore_self() != 0)
            explore_fail("continued before completion", "task B, suspended on A, was resumed on T%d: only A's "
                         "completion, on T0, may resume it", explore_self());
        c->b_continued = true;
        c->b_thread = explore_self();
        task_result r = simple_task_await_resume(&f->inner);
        simple_task_release(&f->inner);
        r.value += 1;
        simple_promise_return_value(&f->promise, r);
        c->b_returned = true;
        return simple_promise_final_suspend(&f->promise);
    }
    }
    return NULL; /* not reached: a finished task is never resumed */
}

static void check_chain_driver_continues(driver_frame *f)
{
    task_context *c = f->ctx;
    if (!c->b_returned)
        explore_fail("continued before completion", "the driver continued past `co_await B` (%s) on T%d before B's "
                     "body had returned its value",
                     f->path == PATH_READY ? "await_ready said completed"
                     : f->path == PATH_LATE ? "await_suspend returned false: it did not suspend"
                                            : "resumed after it suspended",
                     explore_self());
    if (f->path == PATH_SUSPENDED && explore_self() != c->b_thread)
        explore_fail("continued before completion", "the driver, suspended on B, was resumed on T%d: only B's "
                     "completion, on T%d, may resume it", explore_self(), c->b_thread);
    c->driver_thread = explore_self();
}

/* A (the triggered task), B's frame awaiting it once started, and the
 * driver that owns B. */
static void make_chain_across_threads(void *ctx)
{
    task_context *c = ctx;
    make_named_task(c, "task A");
    simple_promise *p;
    if (simple_promise_create(&p, sizeof(link_b_frame), link_b_body) != 0)
        explore_fail("setup", "could not create task B");
    link_b_frame *f = (link_b_frame *)p;
    f->inner = c->task; /* B owns A from now on */
    f->c = c;
    explore_name_coro(p, "task B");
    c->b_frame = p;
    c->b_continued = false;
    c->b_returned = false;
    c->b_path = PATH_NONE;
    c->b_thread = c->driver_thread = -1;
    c->driver = driver_create((simple_task){p});
    if (!c->driver)
        explore_fail("setup", "could not create the driver");
    c->driver->coro.resume = noted_driver_resume;
    c->driver->on_continue = check_chain_driver_continues;
    c->driver->ctx = c;
    explore_name_coro(c->driver, "driver");
}

static void start_b(void *ctx)
{
    task_context *c = ctx;
    explore_note("start task B: its body runs to `co_await A`");
    simple_task mine; /* the driver's copy is the owner: it was handed over in the setup */
    simple_task_start(&mine, c->b_frame);
}

static void await_b(void *ctx)
{
    task_context *c = ctx;
    explore_note("resume the driver: co_await B");
    lockstep_coro_resume(&c->driver->coro);
}

static void check_chain_across_threads(void *ctx)
{
    task_context *c = ctx;
    driver_frame *d = c->driver;
    explore_culprit(d);
    if (!c->b_continued) {
        explore_culprit(c->b_frame);
        explore_fail("lost wake-up", "task B is still suspended on A, though the trigger was fired and every thread "
                     "has finished: nobody will ever resume it");
    }
    if (d->finished == 0)
        explore_fail("lost wake-up", "the driver is still suspended on task B (its await took the %s path), and "
                     "every thread has finished: nobody will ever resume it", path_name(d->path));
    if (d->finished > 1 || d->resumed_when_done)
        explore_fail("resumed twice", "the driver finished its await %d times and was resumed %d times after its end",
                     d->finished, d->resumed_when_done);
    if (d->result.error || d->result.value != 43)
        explore_fail("wrong value", "the driver's await of B returned {%d, %ld}, expected {0, 43}", d->result.error,
                     (long)d->result.value);
    ++c->b_paths[c->b_path];
    ++c->driver_paths[d->path];
    ++c->driver_on[c->driver_thread];
    lockstep_coro_destroy(&d->coro);
}

static void reset_chain_counts(void *ctx)
{
    task_context *c = ctx;
    memset(c->b_paths, 0, sizeof c->b_paths);
    memset(c->driver_paths, 0, sizeof c->driver_paths);
    memset(c->driver_on, 0, sizeof c->driver_on);
}

/* Every way of each await, and the driver continuing on each thread: the
 * scenario reaches what it is about. */
static void chain_across_threads_summary(void *ctx)
{
    task_context *c = ctx;
    const long *b = c->b_paths, *d = c->driver_paths, *on = c->driver_on;
    printf("explore: B's await of A took the ready path in %ld schedules, suspended in %ld, late in %ld; the "
           "driver's await of B %ld, %ld, %ld; the driver continued on T0 in %ld, on T1 in %ld, on T2 in %ld\n",
           b[PATH_READY], b[PATH_SUSPENDED], b[PATH_LATE], d[PATH_READY], d[PATH_SUSPENDED], d[PATH_LATE], on[0],
           on[1], on[2]);
    for (int p = PATH_READY; p <= PATH_LATE; ++p)
        if (!b[p] || !d[p]) {
            printf("explore: FAILED (coverage): every path (ready, suspended, late) of both awaits should be "
                   "reached\n");
            exit(1);
        }
    if (!on[0] || !on[1] || !on[2]) {
        printf("explore: FAILED (coverage): the driver should continue on each thread\n");
        exit(1);
    }
}

/* ---- step 08: the lazy task's body completes on another thread ---------------
 *
 * event_task() { co_await event; co_return 42; }: awaited by the driver on
 * T1 (which starts the body there) while T0 sets the event. The body either
 * passes the set event at once and ends on T1, or suspends on it and is
 * resumed by set() on T0, where it ends and hands over to the driver. */
#if TASK_IS_LAZY

typedef struct event_task_frame {
    simple_promise promise;
    awaitable_event *ev;         /* parameter */
    awaitable_event_awaiter aw;  /* co_await *ev */
    task_context *c;             /* the scenario's, for the checks where it continues */
} event_task_frame;

static lockstep_coro *event_task_body(lockstep_coro *self)
{
    event_task_frame *f = (event_task_frame *)self;
    task_context *c = f->c;
    switch (self->resume_point) {
    case 0:
        explore_note("the task body starts: co_await event");
        self->resume_point = 1;
        if (!awaitable_event_await_ready(f->ev, &f->aw) && awaitable_event_await_suspend(f->ev, &f->aw, self))
            return NULL;
        /* fall through */
    case 1:
        if (!c->fired)
            explore_fail("continued before set", "the task body continued past its co_await on the event, which "
                         "nobody had set");
        ++c->ends[explore_self() == 0 ? 0 : 1];
        simple_promise_return_value(&f->promise, task_value(42));
        c->body_returned = true;
        return simple_promise_final_suspend(&f->promise);
    }
    return NULL; /* not reached */
}

static void make_event_task(void *ctx)
{
    task_context *c = ctx;
    awaitable_event_init(&c->event);
    explore_name(&c->event, "event");
    simple_promise *p;
    if (simple_promise_create(&p, sizeof(event_task_frame), event_task_body) != 0)
        explore_fail("setup", "could not create the task");
    ((event_task_frame *)p)->ev = &c->event;
    ((event_task_frame *)p)->c = c;
    simple_task_start(&c->task, p);
    explore_name_coro(p, "task");
    c->driver = NULL;
    c->fired = false;
    c->body_returned = false;
}

static void make_event_task_and_driver(void *ctx)
{
    task_context *c = ctx;
    make_event_task(c);
    make_driver(c);
}

static void set_event(void *ctx)
{
    task_context *c = ctx;
    explore_note("set the event");
    c->fired = true;
    awaitable_event_set(&c->event);
}

static void check_event_driver(void *ctx)
{
    task_context *c = ctx;
    check_driver(c);
    awaitable_event_destroy(&c->event);
}

static void reset_ends(void *ctx)
{
    task_context *c = ctx;
    memset(c->ends, 0, sizeof c->ends);
}

static void set_vs_lazy_await_summary(void *ctx)
{
    task_context *c = ctx;
    printf("explore: the body ended on the setter's thread in %ld schedules, on the awaiter's in %ld\n", c->ends[0],
           c->ends[1]);
    if (!c->ends[0] || !c->ends[1]) {
        printf("explore: FAILED (coverage): the body should end on either thread\n");
        exit(1);
    }
}

static void release_unstarted(void *ctx)
{
    task_context *c = ctx;
    explore_note("release the task (never awaited: its body never runs)");
    simple_task_release(&c->task);
}

static void check_never_ran(void *ctx)
{
    task_context *c = ctx;
    if (c->ends[0] + c->ends[1] || c->body_returned)
        explore_fail("ran unawaited", "the body of a task released before any await ran");
    awaitable_event_destroy(&c->event);
}

static void check_event_waited(void *ctx)
{
    task_context *c = ctx;
    check_waited(c);
    awaitable_event_destroy(&c->event);
}
#define LAZY(fn) fn
#else
#define LAZY(fn) NULL /* the scenario is skipped before step 08 (min_step) */
#endif

/* One scenario per line that starts with `{.name = "x",`: CMake registers a test per name; main.c
 * decides from min_step and max_step whether it applies to this step. */
const explore_scenario explore_scenarios[] = {
    {.name = "await_chain", .min_step = 1,
     .about = "T0 fires the trigger under a chain of 4 awaits: they complete in a row, in constant stack",
     .nthreads = 1, .thread_names = {"completer"}, .threads = {await_then_complete_chain}, .setup = make_chain,
     .check = check_chain},
    {.name = "completion_vs_await", .min_step = 1,
     .about = "the body completes on T0 while T1 awaits the task (ready, suspended and late paths)",
     .nthreads = 2, .thread_names = {"completer", "awaiter"}, .threads = {complete, await_task},
     .begin = reset_paths, .setup = make_task_and_driver, .check = check_driver,
     .summary = completion_vs_await_summary, .max_step = 7,
     .max_why = "a lazy task's body starts in the await, after the awaiter suspended: nothing to race"},
    {.name = "completion_vs_release", .min_step = 1,
     .about = "the body completes on T0 while T1 releases the task: the frame is freed once",
     .nthreads = 2, .thread_names = {"completer", "owner"}, .threads = {complete, release_task},
     .setup = make_task, .check = check_nothing, .max_step = 7,
     .max_why = "a lazy task released unawaited never runs (set_vs_release_unstarted)"},
    {.name = "await_then_destroy", .min_step = 3,
     .about = "T1 awaits and destroys the suspended awaiter (releasing the task), then T0 completes",
     .nthreads = 2, .thread_names = {"completer", "owner"}, .threads = {complete_after_owner, owner_awaits_then_destroys},
     .setup = make_task_and_driver, .check = check_destroyed, .max_step = 7,
     .max_why = "a lazy task is released before its await or after it, never while its awaiter waits on its body"},
    {.name = "wait_vs_completion", .min_step = 1,
     .about = "T1 blocks in simple_task_wait while T0 completes the task",
     .nthreads = 2, .thread_names = {"completer", "waiter"}, .threads = {complete, wait_for_task},
     .setup = make_task, .check = check_waited, .max_step = 7,
     .max_why = "the body starts in the wait, on the waiter's thread: a trigger fired from another thread could "
                "fire before the body armed it (wait_vs_set)"},
    {.name = "chain_across_three_threads", .min_step = 1,
     .about = "T0 fires the trigger that completes task A; T1 starts task B, which awaits A and returns its value + 1; "
              "T2's driver awaits B",
     .nthreads = 3, .thread_names = {"completer", "link B", "driver"}, .threads = {complete, start_b, await_b},
     .begin = reset_chain_counts, .setup = make_chain_across_threads, .check = check_chain_across_threads,
     .summary = chain_across_threads_summary, .max_step = 7,
     .max_why = "a lazy task's body starts in its awaiter's await, on the awaiter's thread: B could not start on a "
                "thread of its own"},
    {.name = "set_vs_lazy_await", .min_step = 8,
     .about = "T1 awaits a lazy task (starting its body, which awaits an event) while T0 sets the event",
     .nthreads = 2, .thread_names = {"setter", "awaiter"}, .threads = {LAZY(set_event), await_task},
     .begin = LAZY(reset_ends), .setup = LAZY(make_event_task_and_driver), .check = LAZY(check_event_driver),
     .summary = LAZY(set_vs_lazy_await_summary)},
    {.name = "set_vs_release_unstarted", .min_step = 8,
     .about = "T1 releases a lazy task nobody awaited while T0 sets the event its body would await",
     .nthreads = 2, .thread_names = {"setter", "owner"}, .threads = {LAZY(set_event), LAZY(release_unstarted)},
     .begin = LAZY(reset_ends), .setup = LAZY(make_event_task), .check = LAZY(check_never_ran)},
    {.name = "wait_vs_set", .min_step = 8,
     .about = "T1 blocks in simple_task_wait (which starts the body there) while T0 sets the event",
     .nthreads = 2, .thread_names = {"setter", "waiter"}, .threads = {LAZY(set_event), wait_for_task},
     .setup = LAZY(make_event_task), .check = LAZY(check_event_waited)},
};
const size_t explore_nscenarios = sizeof explore_scenarios / sizeof explore_scenarios[0];
