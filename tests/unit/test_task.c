/*
 * simple_task: one Check suite, compiled for every step (LOCKSTEP_STEP).
 *
 * Each case asserts outcomes: values, which await path was taken, how many
 * times a coroutine was resumed, how many frames were allocated and freed.
 * The runner's fixture adds one more to every case: it ends with no live
 * allocation.
 */
#include "check_main.h"
#include "timing.h"
#include "task_bodies.h"

#include "lockstep/alloc.h"
#include "lockstep/executor.h"
#include "lockstep/task.h"
#include "lockstep/trigger.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

/* Makes a driver (task_bodies.h) that owns `task`; it runs when resumed. */
static driver_frame *driver_new(simple_task task)
{
    driver_frame *f = driver_create(task);
    ck_assert_ptr_nonnull(f);
    return f;
}

/* ---- the cases ------------------------------------------------------------ */

START_TEST(ready_path)
{
    simple_task t = {0};
    ck_assert_int_eq(ready_task(&t, task_value(42)), 0);
    driver_frame *d = driver_new(t);
    lockstep_coro_resume(&d->coro);
    ck_assert_msg(lockstep_coro_done(&d->coro) && d->finished == 1,
                  "expected the driver to finish at once: the task had completed; it finished %d times",
                  d->finished);
    ck_assert_msg(d->path == PATH_READY, "expected the ready path (1), the await took path %d", (int)d->path);
    ck_assert_msg(d->result.error == 0 && d->result.value == 42, "expected the result {0, 42}, got {%d, %ld}",
                  d->result.error, (long)d->result.value);
    lockstep_coro_destroy(&d->coro);
}
END_TEST

START_TEST(suspend_path)
{
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    simple_task t = {0};
    ck_assert_int_eq(triggered_task(&t, &trig, task_value(7)), 0);
    driver_frame *d = driver_new(t);
    lockstep_coro_resume(&d->coro);
    ck_assert_msg(!lockstep_coro_done(&d->coro), "the driver must wait for the trigger");
    ck_assert_int_eq(d->path, PATH_SUSPENDED);
    ck_assert_int_eq(d->finished, 0);

    lockstep_trigger_fire(&trig); /* completes the task, which resumes the driver */
    ck_assert_msg(lockstep_coro_done(&d->coro) && d->finished == 1,
                  "expected the completion to resume the suspended driver once; it finished %d times (0: a lost "
                  "wake-up)",
                  d->finished);
    ck_assert_msg(d->result.error == 0 && d->result.value == 7, "expected the result {0, 7}, got {%d, %ld}",
                  d->result.error, (long)d->result.value);
    ck_assert_msg(d->resumed_when_done == 0, "the driver was resumed %d times after its end", d->resumed_when_done);
    lockstep_coro_destroy(&d->coro);
}
END_TEST

START_TEST(error_propagates)
{
    simple_task t = {0};
    ck_assert_int_eq(ready_task(&t, (task_result){EIO, 0}), 0);
    driver_frame *d = driver_new(t);
    lockstep_coro_resume(&d->coro);
    ck_assert_int_eq(d->result.error, EIO);
    lockstep_coro_destroy(&d->coro);

    /* the same through the suspend path, with a value beside the error */
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    ck_assert_int_eq(triggered_task(&t, &trig, (task_result){ECANCELED, -5}), 0);
    d = driver_new(t);
    lockstep_coro_resume(&d->coro);
    lockstep_trigger_fire(&trig);
    ck_assert_int_eq(d->path, PATH_SUSPENDED);
    ck_assert_int_eq(d->result.error, ECANCELED);
    ck_assert_int_eq(d->result.value, -5);
    lockstep_coro_destroy(&d->coro);
}
END_TEST

/* ---- 100,000 awaits in a row ------------------------------------------------
 * plus_one(inner) { r = co_await inner; co_return r + 1; }, nested 100,000
 * deep over one triggered task. Firing the trigger completes the innermost
 * task, which resumes the next one out, and so on: 100,000 resumptions in a
 * chain. Had they been nested calls (the C++'s inline `waiter.resume()`),
 * the stack would grow by a frame per level; with the trampoline every
 * resumption starts at the same depth. */
#define CHAIN_DEPTH 100000

static uintptr_t g_lowest_sp, g_highest_sp;
static size_t g_chain_resumes;

/* plus_one_on_resume (task_bodies.h): each link's resumption, and its depth. */
static void record_stack_depth(void)
{
    ++g_chain_resumes;
    /* the real frame: under ASan a local's address may be on its fake stack */
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    g_lowest_sp = sp < g_lowest_sp ? sp : g_lowest_sp;
    g_highest_sp = sp > g_highest_sp ? sp : g_highest_sp;
}

START_TEST(deep_await_chain)
{
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    simple_task t = {0};
    ck_assert_int_eq(triggered_task(&t, &trig, task_value(0)), 0);
    for (int i = 0; i < CHAIN_DEPTH; ++i) {
        simple_task outer = {0};
        ck_assert_int_eq(plus_one(&outer, t), 0); /* awaits t: suspends at once */
        t = outer;
    }
    ck_assert_int_eq(lockstep_alloc_live(), CHAIN_DEPTH + 1);

    g_lowest_sp = UINTPTR_MAX;
    g_highest_sp = 0;
    g_chain_resumes = 0;
    plus_one_on_resume = record_stack_depth;
#if TASK_IS_LAZY
    /* Nothing has run yet. A driver's await of the outermost starts the
     * chain inwards (each await hands over to its inner task, through the
     * trampoline) down to the trigger; firing it unwinds the chain. */
    driver_frame *d = driver_new(t);
    lockstep_coro_resume(&d->coro);
    ck_assert_int_eq(g_chain_resumes, 0);
    lockstep_trigger_fire(&trig);
    ck_assert_int_eq(d->finished, 1);
    task_result r = d->result;
    lockstep_coro_destroy(&d->coro);
#else
    lockstep_trigger_fire(&trig);
#endif
    plus_one_on_resume = NULL;
    ck_assert_msg(g_chain_resumes == CHAIN_DEPTH, "expected %d awaiters resumed in a chain, %zu were", CHAIN_DEPTH,
                  g_chain_resumes);
    ck_assert_msg(g_highest_sp - g_lowest_sp < 1024,
                  "resuming %d awaiters in a row used %lu bytes of stack: they nest", CHAIN_DEPTH,
                  (unsigned long)(g_highest_sp - g_lowest_sp));

#if !TASK_IS_LAZY
    ck_assert(simple_task_await_ready(&t));
    task_result r = simple_task_await_resume(&t);
    simple_task_release(&t);
#endif
    ck_assert_int_eq(r.error, 0);
    ck_assert_int_eq(r.value, CHAIN_DEPTH);
}
END_TEST

START_TEST(alloc_failure_creates_nothing)
{
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    lockstep_alloc_counts before = lockstep_alloc_totals();
    simple_task t = {0};

    lockstep_alloc_fail_nth(1);
    ck_assert_int_eq(triggered_task(&t, &trig, task_value(1)), ENOMEM);
    lockstep_alloc_counts after = lockstep_alloc_totals();
    ck_assert_ptr_null(t.m_promise);  /* no task handed out */
    ck_assert_ptr_null(trig.waiter);  /* the body never ran */
    ck_assert_uint_eq(after.allocs, before.allocs);
    ck_assert_uint_eq(after.frees, before.frees);
    ck_assert_uint_eq(after.failures, before.failures + 1);

    /* the next attempt works: nothing was left wedged */
    ck_assert_int_eq(triggered_task(&t, &trig, task_value(1)), 0);
    driver_frame *d = driver_new(t);
    lockstep_coro_resume(&d->coro);
    lockstep_trigger_fire(&trig);
    ck_assert_int_eq(d->finished, 1);
    ck_assert_int_eq(d->result.value, 1);
    lockstep_coro_destroy(&d->coro);
}
END_TEST

START_TEST(release_before_completion)
{
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    lockstep_alloc_counts before = lockstep_alloc_totals();
    simple_task t = {0};
    ck_assert_int_eq(triggered_task(&t, &trig, task_value(3)), 0);

    simple_task_release(&t); /* unawaited, body still suspended */
    ck_assert_ptr_null(t.m_promise);
    ck_assert_msg(lockstep_alloc_totals().frees == before.frees, "the frame was freed while its body was suspended");

    lockstep_trigger_fire(&trig); /* the body finishes and frees the frame */
    lockstep_alloc_counts after = lockstep_alloc_totals();
    ck_assert_msg(after.allocs - before.allocs == 1 && after.frees - before.frees == 1,
                  "expected the finishing body to free the released task's frame: 1 allocation, 1 free; got %llu "
                  "and %llu (0 frees: nobody freed it, a leak)",
                  (unsigned long long)(after.allocs - before.allocs), (unsigned long long)(after.frees - before.frees));
}
END_TEST

START_TEST(release_after_completion)
{
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    lockstep_alloc_counts before = lockstep_alloc_totals();
    simple_task t = {0};
    ck_assert_int_eq(triggered_task(&t, &trig, task_value(4)), 0);

    lockstep_trigger_fire(&trig); /* completes with nobody awaiting */
    ck_assert_msg(lockstep_alloc_totals().frees == before.frees, "the frame was freed before the task was released");
    simple_task_release(&t);
    lockstep_alloc_counts after = lockstep_alloc_totals();
    ck_assert_msg(after.frees - before.frees == 1,
                  "expected the release of a finished task to free its frame once; %llu frees",
                  (unsigned long long)(after.frees - before.frees));

    /* and a task that completed during creation */
    ck_assert_int_eq(ready_task(&t, task_value(5)), 0);
    simple_task_release(&t);
    after = lockstep_alloc_totals();
    ck_assert_uint_eq(after.allocs - before.allocs, 2);
    ck_assert_uint_eq(after.frees - before.frees, 2);
}
END_TEST

/* The third way through an await: not ready when asked, completed by the
 * time the awaiter registers. Forced here on one thread, step by step. */
static int g_dummy_resumes;

static lockstep_coro *dummy_resume(lockstep_coro *self)
{
    (void)self;
    ++g_dummy_resumes;
    return NULL;
}

static void dummy_destroy(lockstep_coro *self)
{
    (void)self; /* lives on the test's stack */
}

START_TEST(late_completion)
{
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    lockstep_alloc_counts before = lockstep_alloc_totals();
    simple_task t = {0};
    ck_assert_int_eq(triggered_task(&t, &trig, task_value(9)), 0);
    lockstep_coro awaiting;
    lockstep_coro_init(&awaiting, dummy_resume, dummy_destroy);
    g_dummy_resumes = 0;

    ck_assert(!simple_task_await_ready(&t));
    lockstep_trigger_fire(&trig); /* completes in between */
    ck_assert_msg(!simple_task_await_suspend(&t, &awaiting),
                  "expected await_suspend to continue at once: the task completed after await_ready (the late "
                  "path); it suspended, and nobody would ever resume the awaiter");
    ck_assert_int_eq(simple_task_await_resume(&t).value, 9);
    simple_task_release(&t);
    ck_assert_msg(g_dummy_resumes == 0, "the awaiter that continued at once was also resumed %d times",
                  g_dummy_resumes);
    lockstep_alloc_counts after = lockstep_alloc_totals();
    ck_assert_msg(after.frees - before.frees == 1,
                  "expected the release after the late path to free the frame once; it was freed %llu times (0: "
                  "a leak: await_suspend must put \"completed\" back in m_waiting, or abandon() does not know the "
                  "body finished)",
                  (unsigned long long)(after.frees - before.frees));
}
END_TEST

/* ---- completion racing the await ------------------------------------------
 * Each iteration: this thread makes a triggered task and a driver, hands the
 * trigger to the firing thread, and runs the driver while the other thread
 * fires. Every iteration must end with the driver finished exactly once with
 * the task's value, whichever way it went. Over the run both outcomes must
 * occur: the task completed first (ready, or late) or the driver suspended
 * first and was resumed on the firing thread. A steer (timing.h) delays
 * whichever thread keeps winning, so they do on an idle machine and a busy
 * one; on one CPU the coverage check is reported skipped (check_main.h). */
#define RACE_ITERATIONS 20000u
#define RACE_SECONDS 2.0 /* timing.h: may stop early under load, once both outcomes occurred */

START_TEST(completion_races_await)
{
    race_firer s;
    ck_assert_int_eq(race_firer_start(&s, RACE_ITERATIONS), 0);

    unsigned paths[4] = {0, 0, 0, 0};
    race_steer steer = {0};
    race_budget budget = race_budget_start(RACE_SECONDS);
    unsigned ran = 0;
    for (unsigned i = 1; i <= s.iterations; ++i) {
        simple_task t = {0};
        ck_assert_int_eq(triggered_task(&t, &s.trig, task_value((intptr_t)i)), 0);
        driver_frame *d = driver_new(t);
        race_firer_go(&s, i, &steer);
        lockstep_coro_resume(&d->coro);
        race_wait_for(&s.done, i);

        ck_assert_msg(d->path != PATH_NONE && lockstep_coro_done(&d->coro) && d->finished == 1,
                      "iteration %u: expected the driver to finish its await exactly once once the task "
                      "completed; it finished %d times (await path %d: 1 ready, 2 suspended, 3 late). A lost "
                      "wake-up: see " LOCKSTEP_STEP_README ", \"The idea\"",
                      i, d->finished, (int)d->path);
        ck_assert_msg(d->resumed_when_done == 0, "iteration %u: the driver was resumed %d times after its end",
                      i, d->resumed_when_done);
        ck_assert_msg(d->result.value == (intptr_t)i, "iteration %u: the await returned %ld, expected %u", i,
                      (long)d->result.value, i);
        ++paths[d->path];
        race_steer_update(&steer, d->path == PATH_SUSPENDED);
        lockstep_coro_destroy(&d->coro);
        ran = i;
        if (race_may_stop(&budget, paths[PATH_SUSPENDED] > 0 && paths[PATH_READY] + paths[PATH_LATE] > 0))
            break;
    }
    race_firer_stop(&s);
    printf("awaits: %u ready, %u late, %u suspended\n", paths[PATH_READY], paths[PATH_LATE], paths[PATH_SUSPENDED]);
    lockstep_check_race_coverage("completion vs await", "completed first (ready or late path)",
                                 paths[PATH_READY] + paths[PATH_LATE], "await suspended first",
                                 paths[PATH_SUSPENDED], ran, LOCKSTEP_STEP_README);
}
END_TEST

/* ---- erratum 1: the awaiter is destroyed while suspended ---------------------
 * The driver awaits an unfinished task and is destroyed (C++: the coroutine
 * that holds the task is destroyed), which releases the task. The task's
 * body is still suspended, so its frame must stay; when it finishes it must
 * free itself and must not resume the destroyed driver. Steps 01 and 02
 * resume the dead driver (their README says why); the article's abandon()
 * frees the running frame at once (the test build with
 * LOCKSTEP_ARTICLE_ABANDON shows it). */
START_TEST(awaiter_released_while_suspended)
{
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    lockstep_alloc_counts before = lockstep_alloc_totals();
    simple_task t = {0};
    ck_assert_int_eq(triggered_task(&t, &trig, task_value(11)), 0);
    int driver_resumes = 0;
    driver_frame *d = driver_new(t);
    d->resumes = &driver_resumes;
    lockstep_coro_resume(&d->coro);
    ck_assert_int_eq(d->path, PATH_SUSPENDED);

    lockstep_coro_destroy(&d->coro); /* frees the driver, releases the task */
    lockstep_alloc_counts mid = lockstep_alloc_totals();
    ck_assert_msg(mid.frees - before.frees == 1,
                  "releasing the awaited task freed its frame while its body was suspended (erratum 1)");

    lockstep_trigger_fire(&trig);
    ck_assert_msg(driver_resumes == 0, "expected the completion to resume nobody: the awaiter was destroyed; it "
                  "resumed the destroyed awaiter %d time(s) (a use after free)", driver_resumes);
    lockstep_alloc_counts after = lockstep_alloc_totals();
    ck_assert_msg(after.allocs - before.allocs == 2 && after.frees - before.frees == 2,
                  "expected the task's frame and the driver's freed once each (2 allocations, 2 frees); got %llu "
                  "and %llu",
                  (unsigned long long)(after.allocs - before.allocs), (unsigned long long)(after.frees - before.frees));
}
END_TEST

/* ---- each path across two threads, ordered by the task alone -----------------
 * The orders of m_waiting's operations are there for one reason: what one
 * thread wrote to a frame before its exchange must be visible to the other
 * thread after its own. A race test shows that only when the race happens to
 * take the path; these cases take one path on purpose, every round. The test
 * thread and a helper that fires the trigger take turns through relaxed
 * flags, which order nothing, so the only happens-before between the two
 * threads' accesses is the task's own exchanges. Weaken one of those orders
 * and ThreadSanitizer reports the access it no longer orders, on every run
 * (the mutation table, docs/MUTANTS.md, relies on it). Each round also
 * checks the outcome: values, resumptions, one frame freed once. */
enum { TURN_ROUNDS = 200 };

typedef struct relaxed_turns {
    lockstep_trigger trig;
    atomic_uint armed; /* release: round n's trigger is armed (the only release to the helper) */
    atomic_uint fire;  /* relaxed: fire round n now */
    atomic_uint fired; /* relaxed: round n has fired */
    atomic_uint done;  /* release: the helper is done with round n */
    pthread_t thread;
} relaxed_turns;

static void *relaxed_turns_helper(void *arg)
{
    relaxed_turns *r = arg;
    for (unsigned n = 1; n <= TURN_ROUNDS; ++n) {
        race_wait_for(&r->armed, n);
        race_wait_relaxed(&r->fire, n);
        lockstep_trigger_fire(&r->trig); /* completes the task here, maybe resumes its awaiter */
        atomic_store_explicit(&r->fired, n, memory_order_relaxed);
        race_publish(&r->done, n);
    }
    return NULL;
}

static void relaxed_turns_start(relaxed_turns *r)
{
    lockstep_trigger_init(&r->trig);
    atomic_init(&r->armed, 0);
    atomic_init(&r->fire, 0);
    atomic_init(&r->fired, 0);
    atomic_init(&r->done, 0);
    ck_assert_int_eq(pthread_create(&r->thread, NULL, relaxed_turns_helper, r), 0);
}

/* Round n: make a triggered task (it arms the trigger) and hand the armed
 * trigger to the helper. Everything the test thread does after this is
 * unordered with the helper's firing but for the task's exchanges. */
static void relaxed_turns_arm(relaxed_turns *r, unsigned n, simple_task *t)
{
    ck_assert_int_eq(triggered_task(t, &r->trig, task_value((intptr_t)n)), 0);
    race_publish(&r->armed, n);
}

/* The late path, across threads: await_ready sees "running", the helper
 * completes the task, then await_suspend's exchange takes out "completed"
 * and the result is read. Its acquire is what orders the helper's write of
 * m_holder before that read. */
START_TEST(late_path_across_threads)
{
    relaxed_turns r;
    relaxed_turns_start(&r);
    lockstep_coro awaiting;
    lockstep_coro_init(&awaiting, dummy_resume, dummy_destroy);
    g_dummy_resumes = 0;
    for (unsigned n = 1; n <= TURN_ROUNDS; ++n) {
        lockstep_alloc_counts before = lockstep_alloc_totals();
        simple_task t = {0};
        relaxed_turns_arm(&r, n, &t);
        ck_assert(!simple_task_await_ready(&t));
        atomic_store_explicit(&r.fire, n, memory_order_relaxed);
        race_wait_relaxed(&r.fired, n);
        ck_assert_msg(!simple_task_await_suspend(&t, &awaiting),
                      "round %u: the task had completed on the other thread; the awaiter suspended anyway", n);
        task_result res = simple_task_await_resume(&t); /* ordered by await_suspend's acquire only */
        simple_task_release(&t);
        race_wait_for(&r.done, n);
        ck_assert_msg(res.value == (intptr_t)n, "round %u: the late path read %ld, expected %u", n, (long)res.value,
                      n);
        lockstep_alloc_counts after = lockstep_alloc_totals();
        ck_assert_msg(after.frees - before.frees == 1, "round %u: the frame was freed %llu times, expected once", n,
                      (unsigned long long)(after.frees - before.frees));
    }
    pthread_join(r.thread, NULL);
    ck_assert_int_eq(g_dummy_resumes, 0);
}
END_TEST

/* The suspend path, across threads: the driver suspends here, the helper
 * completes the task and resumes the driver there. await_suspend's release
 * is what publishes the driver's frame (its resume point, its locals) to
 * the thread that resumes it. */
START_TEST(suspend_path_across_threads)
{
    relaxed_turns r;
    relaxed_turns_start(&r);
    for (unsigned n = 1; n <= TURN_ROUNDS; ++n) {
        simple_task t = {0};
        relaxed_turns_arm(&r, n, &t);
        driver_frame *d = driver_new(t); /* written after the hand-off: ordered by the await only */
        lockstep_coro_resume(&d->coro);
        ck_assert_msg(d->path == PATH_SUSPENDED, "round %u: the driver did not suspend (path %d)", n, (int)d->path);
        atomic_store_explicit(&r.fire, n, memory_order_relaxed);
        race_wait_for(&r.done, n); /* now the driver has run on the helper: read it */
        ck_assert_msg(d->finished == 1 && d->result.value == (intptr_t)n,
                      "round %u: expected the helper to resume the driver once with %u; finished %d times with %ld",
                      n, n, d->finished, (long)d->result.value);
        lockstep_coro_destroy(&d->coro);
    }
    pthread_join(r.thread, NULL);
}
END_TEST

/* Release first, completion across threads: the task is released here while
 * its body is suspended, then the helper completes it and the body frees the
 * frame there. abandon()'s release is what orders this thread's exchange
 * (and any access before it) before that free (step 03's erratum 1, the
 * order; steps 01-02 order it with the reference count's decrement). */
START_TEST(release_then_completion_across_threads)
{
    relaxed_turns r;
    relaxed_turns_start(&r);
    for (unsigned n = 1; n <= TURN_ROUNDS; ++n) {
        lockstep_alloc_counts before = lockstep_alloc_totals();
        simple_task t = {0};
        relaxed_turns_arm(&r, n, &t);
        simple_task_release(&t); /* the body is suspended: the completion frees the frame */
        atomic_store_explicit(&r.fire, n, memory_order_relaxed);
        race_wait_for(&r.done, n);
        lockstep_alloc_counts after = lockstep_alloc_totals();
        ck_assert_msg(after.frees - before.frees == 1,
                      "round %u: expected the completion on the other thread to free the released task's frame "
                      "once; %llu frees",
                      n, (unsigned long long)(after.frees - before.frees));
    }
    pthread_join(r.thread, NULL);
}
END_TEST

/* ---- simple_task_wait: a plain thread blocks on a task ---------------------- */
#if !TASK_IS_LAZY
typedef struct delayed_fire {
    lockstep_trigger *trig;
    atomic_uint *started;
} delayed_fire;

static void *fire_later(void *arg)
{
    delayed_fire *df = arg;
    race_publish(df->started, 1);
    race_jitter(20000);
    lockstep_trigger_fire(df->trig);
    return NULL;
}
#endif

START_TEST(wait_blocks_until_complete)
{
    simple_task t = {0};
    ck_assert_int_eq(ready_task(&t, task_value(21)), 0);
    ck_assert_int_eq(simple_task_wait(&t).value, 21); /* already complete */
    simple_task_release(&t);

#if TASK_IS_LAZY
    /* The body starts in the wait, here, and completes on a worker: a
     * trigger fired from another thread could fire before the body armed it. */
    lockstep_executor ex;
    ck_assert_int_eq(lockstep_executor_init(&ex, 1), 0);
    ck_assert_int_eq(hop_task(&t, &ex, task_value(22)), 0);
    task_result r = simple_task_wait(&t);
    lockstep_executor_destroy(&ex);
#else
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    ck_assert_int_eq(triggered_task(&t, &trig, task_value(22)), 0);
    atomic_uint started;
    atomic_init(&started, 0);
    delayed_fire df = {&trig, &started};
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, fire_later, &df), 0);
    race_wait_for(&started, 1);
    task_result r = simple_task_wait(&t);
    pthread_join(th, NULL);
#endif
    ck_assert_int_eq(r.error, 0);
    ck_assert_int_eq(r.value, 22);
    simple_task_release(&t);
}
END_TEST

/* ---- what a lazy task adds (step 08) ---------------------------------------- */

/* A body that counts its runs: co_return 5; */
typedef struct counted_frame {
    simple_promise promise;
    int *runs; /* parameter: outlives the frame */
} counted_frame;

static lockstep_coro *counted_body(lockstep_coro *self)
{
    counted_frame *f = (counted_frame *)self;
    ++*f->runs;
    simple_promise_return_value(&f->promise, task_value(5));
    return simple_promise_final_suspend(&f->promise);
}

static int counted_task(simple_task *task, int *runs)
{
    simple_promise *p;
    int err = simple_promise_create(&p, sizeof(counted_frame), counted_body);
    if (err)
        return err;
    ((counted_frame *)p)->runs = runs;
    simple_task_start(task, p);
    return 0;
}

START_TEST(never_started_if_never_awaited)
{
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    lockstep_alloc_counts before = lockstep_alloc_totals();
    simple_task t = {0};
    ck_assert_int_eq(triggered_task(&t, &trig, task_value(1)), 0);
    ck_assert_msg(trig.waiter == NULL, "creating a lazy task ran its body: it armed the trigger");
    int runs = 0;
    simple_task c = {0};
    ck_assert_int_eq(counted_task(&c, &runs), 0);
    simple_task_release(&t);
    simple_task_release(&c);
    ck_assert_msg(runs == 0 && trig.waiter == NULL, "releasing a task that was never awaited ran its body (%d runs)",
                  runs);
    lockstep_alloc_counts after = lockstep_alloc_totals();
    ck_assert_msg(after.allocs - before.allocs == 2 && after.frees - before.frees == 2,
                  "expected the release to free each unstarted frame once: 2 allocations, 2 frees; got %llu and %llu",
                  (unsigned long long)(after.allocs - before.allocs), (unsigned long long)(after.frees - before.frees));
}
END_TEST

START_TEST(started_exactly_once)
{
    int runs = 0;
    simple_task t = {0};
    ck_assert_int_eq(counted_task(&t, &runs), 0);
    ck_assert_int_eq(runs, 0);
    int driver_resumes = 0;
    driver_frame *d = driver_new(t);
    d->resumes = &driver_resumes;
    lockstep_coro_resume(&d->coro);
    ck_assert_msg(runs == 1 && d->finished == 1 && driver_resumes == 1,
                  "expected the await to run the body once and continue the awaiter once; the body ran %d times, "
                  "the awaiter continued %d times",
                  runs, driver_resumes);
    ck_assert_int_eq(d->result.value, 5);
    ck_assert_int_eq(d->path, PATH_SUSPENDED); /* the awaiter suspends before the body starts */
    lockstep_coro_destroy(&d->coro);
    ck_assert_int_eq(runs, 1);

    /* the same through simple_task_wait */
    ck_assert_int_eq(counted_task(&t, &runs), 0);
    ck_assert_int_eq(simple_task_wait(&t).value, 5);
    simple_task_release(&t);
    ck_assert_int_eq(runs, 2);
}
END_TEST

/* plus_one(plus_one(ready)) released before anyone awaits it: the outer
 * frame is freed without running and releases the inner task it owns. */
START_TEST(released_unstarted_leaks_nothing)
{
    lockstep_alloc_counts before = lockstep_alloc_totals();
    simple_task t = {0};
    ck_assert_int_eq(ready_task(&t, task_value(1)), 0);
    for (int i = 0; i < 2; ++i) {
        simple_task outer = {0};
        ck_assert_int_eq(plus_one(&outer, t), 0);
        t = outer;
    }
    g_chain_resumes = 0;
    plus_one_on_resume = record_stack_depth;
    simple_task_release(&t);
    plus_one_on_resume = NULL;
    ck_assert_msg(g_chain_resumes == 0, "releasing an unstarted task ran a body");
    lockstep_alloc_counts after = lockstep_alloc_totals();
    ck_assert_msg(after.allocs - before.allocs == 3 && after.frees - before.frees == 3,
                  "expected the release to free the three frames (the outer task owns the inner ones); got %llu "
                  "allocations and %llu frees",
                  (unsigned long long)(after.allocs - before.allocs), (unsigned long long)(after.frees - before.frees));
}
END_TEST

/* 1,000,000 lazy awaits: the await of the outermost hands over inwards a
 * million times and the completions hand back outwards a million times, all
 * through the trampoline. Nested calls would need a million stack frames
 * (the 8 MiB stack holds about 8 bytes per level): it would crash. */
#define LAZY_CHAIN_DEPTH 1000000

START_TEST(lazy_chain_million)
{
    simple_task t = {0};
    ck_assert_int_eq(ready_task(&t, task_value(0)), 0);
    for (int i = 0; i < LAZY_CHAIN_DEPTH; ++i) {
        simple_task outer = {0};
        ck_assert_int_eq(plus_one(&outer, t), 0);
        t = outer;
    }
    ck_assert_int_eq(lockstep_alloc_live(), LAZY_CHAIN_DEPTH + 1);
    g_lowest_sp = UINTPTR_MAX;
    g_highest_sp = 0;
    g_chain_resumes = 0;
    plus_one_on_resume = record_stack_depth;
    driver_frame *d = driver_new(t);
    lockstep_coro_resume(&d->coro);
    plus_one_on_resume = NULL;
    ck_assert_msg(d->finished == 1 && g_chain_resumes == LAZY_CHAIN_DEPTH,
                  "expected %d links to continue and the driver to finish once; %zu continued, it finished %d times",
                  LAZY_CHAIN_DEPTH, g_chain_resumes, d->finished);
    ck_assert_msg(g_highest_sp - g_lowest_sp < 1024, "the chain used %lu bytes of stack: the hand-overs nest",
                  (unsigned long)(g_highest_sp - g_lowest_sp));
    ck_assert_int_eq(d->result.value, LAZY_CHAIN_DEPTH);
    lockstep_coro_destroy(&d->coro);
}
END_TEST

/* Building a lazy chain fails half-way: the failed link creates nothing, the
 * caller still owns the chain so far, and releasing it frees every frame
 * without running a body. */
START_TEST(alloc_failure_leaves_nothing)
{
    lockstep_alloc_counts before = lockstep_alloc_totals();
    simple_task t = {0};
    ck_assert_int_eq(ready_task(&t, task_value(0)), 0);
    int made = 0, err = 0;
    lockstep_alloc_fail_nth(4); /* the 4th allocation from now: the 4th link */
    while (!err && made < 10) {
        simple_task outer = {0};
        err = plus_one(&outer, t);
        if (!err) {
            t = outer;
            ++made;
        } else {
            ck_assert_ptr_null(outer.m_promise);
        }
    }
    ck_assert_int_eq(err, ENOMEM);
    ck_assert_int_eq(made, 3);
    ck_assert_int_eq(lockstep_alloc_live(), made + 1);
    g_chain_resumes = 0;
    plus_one_on_resume = record_stack_depth;
    simple_task_release(&t);
    plus_one_on_resume = NULL;
    ck_assert_int_eq(g_chain_resumes, 0);
    lockstep_alloc_counts after = lockstep_alloc_totals();
    ck_assert_uint_eq(after.allocs - before.allocs, (unsigned)made + 1);
    ck_assert_uint_eq(after.frees - before.frees, (unsigned)made + 1);
    ck_assert_uint_eq(after.failures - before.failures, 1);
}
END_TEST

int main(int argc, char **argv)
{
    const lockstep_case cases[] = { /* automatic: START_TEST names are pointer variables */
        {ready_path, 1, "a lazy task has not run before its await, so an await never finds it completed", 7, "a task that completed before the await is not suspended on, and gives its result",
         "steps/01-mutex/README.md, \"The idea\""},
        {suspend_path, 1, NULL, 0,
         "an await of an unfinished task suspends, and the completion resumes the awaiter once, with the result",
         "steps/01-mutex/README.md, \"The idea\""},
        {error_propagates, 1, NULL, 0, "a task's error reaches its awaiter on the ready and the suspend path",
         "steps/01-mutex/README.md, \"From C++ to C\""},
        {deep_await_chain, 1, NULL, 0,
         "100,000 completions resuming each other run at one stack depth: final_suspend returns the awaiter to "
         "the trampoline instead of calling it",
         "steps/01-mutex/README.md, \"From C++ to C\""},
        {alloc_failure_creates_nothing, 1, NULL, 0,
         "a failed frame allocation returns ENOMEM and creates, runs and leaks nothing",
         "steps/01-mutex/README.md, \"From C++ to C\""},
        {release_before_completion, 1, "a lazy task released before its await never runs (never_started_if_never_awaited)", 7,
         "releasing an unfinished task keeps its frame until the body finishes, which then frees it",
         "steps/03-no-refcount/README.md, \"The idea\" (steps 01-02: the reference count)"},
        {release_after_completion, 1, "a lazy task cannot complete unawaited (never_started_if_never_awaited)", 7, "the frame of a finished task is freed by its release, once",
         "steps/03-no-refcount/README.md, \"The idea\" (steps 01-02: the reference count)"},
        {late_completion, 1, "a lazy task cannot complete between await_ready and await_suspend: it starts in await_suspend", 7,
         "the late path: the task completes between await_ready and await_suspend; the awaiter continues at once "
         "and the frame is freed exactly once",
         "steps/03-no-refcount/README.md, \"Errata this step fixes\" (erratum 1, its consequence: the late path)"},
        {completion_races_await, 1, "a lazy task's completion cannot race its await: the awaiter is suspended before the body starts", 7,
         "completion racing the await on two threads: no lost wake-up, no double resume, both outcomes occur",
         "steps/02-atomic-handle/README.md, \"The idea\""},
        {awaiter_released_while_suspended, 3,
         "before abandon() (step 03) the completing task resumes its destroyed awaiter (use after free); "
         "from step 08 a task is released only before its await or after it (no awaiter waits on a running body)", 7,
         "an awaiter destroyed while suspended releases the task; the task's frame lives until its body finishes, "
         "which frees it and resumes nobody",
         "steps/03-no-refcount/README.md, \"Errata this step fixes\" (erratum 1)"},
        {late_path_across_threads, 1, "a lazy task has no late path: it starts in await_suspend", 7,
         "the late path with the completion on another thread: await_suspend's acquire orders the result before "
         "its read (under ThreadSanitizer: every run)",
         "steps/03-no-refcount/README.md, \"Memory orders\""},
        {suspend_path_across_threads, 1, "a lazy task has no atomic that orders the hand-over: the body starts on the awaiting thread, and whatever resumes it elsewhere orders it (wait_blocks_until_complete crosses threads)", 7,
         "the suspend path with the resumption on another thread: await_suspend's release publishes the awaiter's "
         "frame (under ThreadSanitizer: every run)",
         "steps/02-atomic-handle/README.md, \"Memory orders\""},
        {release_then_completion_across_threads, 1, "a lazy task released before its await never runs, so no completion frees it", 7,
         "release before completion, the completion on another thread frees the frame: abandon()'s release "
         "orders the release before that free (under ThreadSanitizer: every run)",
         "steps/03-no-refcount/README.md, \"Errata this step fixes\" (erratum 1, the order)"},
        {wait_blocks_until_complete, 1, NULL, 0, "simple_task_wait blocks a plain thread until the task completes",
         "steps/01-mutex/README.md, \"From C++ to C\""},
        {never_started_if_never_awaited, 8, "tasks start when created before step 08", 0,
         "a lazy task's body does not run at its creation, nor at its release if it was never awaited; the "
         "release frees its frame",
         "steps/08-lazy-task/README.md, \"The idea\""},
        {started_exactly_once, 8, "tasks start when created before step 08", 0,
         "the first await runs the body once, after the awaiter is suspended; so does simple_task_wait",
         "steps/08-lazy-task/README.md, \"The idea\""},
        {released_unstarted_leaks_nothing, 8, "tasks start when created before step 08", 0,
         "releasing an unstarted task frees its frame and what its parameters own, running nothing",
         "steps/08-lazy-task/README.md, \"What a lazy task gives up\""},
        {lazy_chain_million, 8, "tasks start when created before step 08 (deep_await_chain covers them)", 0,
         "1,000,000 awaits hand over inwards and back outwards at one stack depth: await_suspend returns the body "
         "to the trampoline",
         "steps/08-lazy-task/README.md, \"The idea\""},
        {alloc_failure_leaves_nothing, 8, "tasks start when created before step 08 (alloc_failure_creates_nothing)", 0,
         "a failed allocation while building a chain of lazy tasks creates nothing, and releasing the chain "
         "frees every frame without running it",
         "steps/08-lazy-task/README.md, \"What a lazy task gives up\""},
    };
    return lockstep_check_main("task", LOCKSTEP_STEP, cases, sizeof cases / sizeof cases[0], argc, argv);
}
