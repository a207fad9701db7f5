/*
 * simple_task: one Check suite, compiled for every step (LOCKSTEP_STEP).
 *
 * Each case asserts outcomes: values, which await path was taken, how many
 * times a coroutine was resumed, how many frames were allocated and freed.
 * The runner's fixture adds one more to every case: it ends with no live
 * allocation. The cases of step 08's lazy task live in task/lazy.c; what
 * the files share, in task/task_cases.h.
 */
#include "task/task_cases.h"
#include "await_race.h"

/* ---- the cases ------------------------------------------------------------ */

START_TEST(ready_path)
{
    simple_task t = {0};
    ck_assert_int_eq(ready_task(&t, task_value(42)), 0);
    driver_frame *d = driver_start(t, NULL);
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
    triggered_fixture fx;
    triggered_setup(&fx, 7);
    driver_frame *d = driver_start(fx.task, NULL);
    ck_assert_msg(!lockstep_coro_done(&d->coro), "the driver must wait for the trigger");
    ck_assert_int_eq(d->path, PATH_SUSPENDED);
    ck_assert_int_eq(d->finished, 0);

    lockstep_trigger_fire(&fx.trig); /* completes the task, which resumes the driver */
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
    driver_frame *d = driver_start(t, NULL);
    ck_assert_int_eq(d->result.error, EIO);
    lockstep_coro_destroy(&d->coro);

    /* the same through the suspend path, with a value beside the error */
    lockstep_trigger trig;
    lockstep_trigger_init(&trig);
    ck_assert_int_eq(triggered_task(&t, &trig, (task_result){ECANCELED, -5}), 0);
    d = driver_start(t, NULL);
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

START_TEST(deep_await_chain)
{
    triggered_fixture fx;
    triggered_setup(&fx, 0);
    simple_task t = fx.task;
    plus_one_wrap(&t, CHAIN_DEPTH);
    ck_assert_int_eq(lockstep_alloc_live(), CHAIN_DEPTH + 1);

    chain_record_start();
#if TASK_IS_LAZY
    /* Nothing has run yet. A driver's await of the outermost starts the
     * chain inwards (each await hands over to its inner task, through the
     * trampoline) down to the trigger; firing it unwinds the chain. */
    driver_frame *d = driver_start(t, NULL);
    ck_assert_int_eq(g_chain_resumes, 0);
    lockstep_trigger_fire(&fx.trig);
    ck_assert_int_eq(d->finished, 1);
    task_result r = d->result;
    lockstep_coro_destroy(&d->coro);
#else
    lockstep_trigger_fire(&fx.trig);
#endif
    chain_record_stop();
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
    alloc_delta n = allocs_since(before);
    ck_assert_ptr_null(t.m_promise);  /* no task handed out */
    ck_assert_ptr_null(trig.waiter);  /* the body never ran */
    ck_assert_uint_eq(n.allocs, 0);
    ck_assert_uint_eq(n.frees, 0);
    ck_assert_uint_eq(n.failures, 1);

    /* the next attempt works: nothing was left wedged */
    ck_assert_int_eq(triggered_task(&t, &trig, task_value(1)), 0);
    driver_frame *d = driver_start(t, NULL);
    lockstep_trigger_fire(&trig);
    ck_assert_int_eq(d->finished, 1);
    ck_assert_int_eq(d->result.value, 1);
    lockstep_coro_destroy(&d->coro);
}
END_TEST

START_TEST(release_before_completion)
{
    triggered_fixture fx;
    triggered_setup(&fx, 3);

    simple_task_release(&fx.task); /* unawaited, body still suspended */
    ck_assert_ptr_null(fx.task.m_promise);
    ck_assert_msg(allocs_since(fx.before).frees == 0, "the frame was freed while its body was suspended");

    lockstep_trigger_fire(&fx.trig); /* the body finishes and frees the frame */
    assert_frames_freed(fx.before, 1,
                        "the finishing body to free the released task's frame (0 frees: nobody freed it, a leak)");
}
END_TEST

START_TEST(release_after_completion)
{
    triggered_fixture fx;
    triggered_setup(&fx, 4);

    lockstep_trigger_fire(&fx.trig); /* completes with nobody awaiting */
    ck_assert_msg(allocs_since(fx.before).frees == 0, "the frame was freed before the task was released");
    simple_task_release(&fx.task);
    alloc_delta n = allocs_since(fx.before);
    ck_assert_msg(n.frees == 1, "expected the release of a finished task to free its frame once; %llu frees", n.frees);

    /* and a task that completed during creation */
    ck_assert_int_eq(ready_task(&fx.task, task_value(5)), 0);
    simple_task_release(&fx.task);
    n = allocs_since(fx.before);
    ck_assert_uint_eq(n.allocs, 2);
    ck_assert_uint_eq(n.frees, 2);
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
    triggered_fixture fx;
    triggered_setup(&fx, 9);
    simple_task *t = &fx.task;
    lockstep_coro awaiting;
    lockstep_coro_init(&awaiting, dummy_resume, dummy_destroy);
    g_dummy_resumes = 0;

    ck_assert(!simple_task_await_ready(t));
    lockstep_trigger_fire(&fx.trig); /* completes in between */
    ck_assert_msg(!simple_task_await_suspend(t, &awaiting),
                  "expected await_suspend to continue at once: the task completed after await_ready (the late "
                  "path); it suspended, and nobody would ever resume the awaiter");
    ck_assert_int_eq(simple_task_await_resume(t).value, 9);
    simple_task_release(t);
    ck_assert_msg(g_dummy_resumes == 0, "the awaiter that continued at once was also resumed %d times",
                  g_dummy_resumes);
    alloc_delta n = allocs_since(fx.before);
    ck_assert_msg(n.frees == 1,
                  "expected the release after the late path to free the frame once; it was freed %llu times (0: "
                  "a leak: await_suspend must put \"completed\" back in m_waiting, or abandon() does not know the "
                  "body finished)",
                  n.frees);
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
    await_race r;
    await_race_start(&r, RACE_ITERATIONS, RACE_SECONDS);
    for (unsigned i = 1; i <= r.firer.iterations; ++i) {
        driver_frame *d = await_race_round(&r, i);
        lockstep_assert_in_loop(d->path != PATH_NONE && lockstep_coro_done(&d->coro) && d->finished == 1,
                                "iteration %u: expected the driver to finish its await exactly once once the task "
                                "completed; it finished %d times (await path %d: 1 ready, 2 suspended, 3 late). A "
                                "lost wake-up: see " LOCKSTEP_STEP_README ", \"The idea\"",
                                i, d->finished, (int)d->path);
        lockstep_assert_in_loop(d->resumed_when_done == 0,
                                "iteration %u: the driver was resumed %d times after its end", i, d->resumed_when_done);
        lockstep_assert_in_loop(d->result.value == (intptr_t)i, "iteration %u: the await returned %ld, expected %u",
                                i, (long)d->result.value, i);
        if (await_race_next(&r, i, d))
            break;
    }
    await_race_finish(&r, "awaits", LOCKSTEP_STEP_README);
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
    triggered_fixture fx;
    triggered_setup(&fx, 11);
    int driver_resumes = 0;
    driver_frame *d = driver_start(fx.task, &driver_resumes);
    ck_assert_int_eq(d->path, PATH_SUSPENDED);

    lockstep_coro_destroy(&d->coro); /* frees the driver, releases the task */
    ck_assert_msg(allocs_since(fx.before).frees == 1,
                  "releasing the awaited task freed its frame while its body was suspended (erratum 1)");

    lockstep_trigger_fire(&fx.trig);
    ck_assert_msg(driver_resumes == 0, "expected the completion to resume nobody: the awaiter was destroyed; it "
                  "resumed the destroyed awaiter %d time(s) (a use after free)", driver_resumes);
    assert_frames_freed(fx.before, 2, "the task's frame and the driver's freed once each");
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
        unsigned long long frees = allocs_since(before).frees;
        ck_assert_msg(frees == 1, "round %u: the frame was freed %llu times, expected once", n, frees);
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
        driver_frame *d = driver_start(t, NULL); /* written after the hand-off: ordered by the await only */
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
        unsigned long long frees = allocs_since(before).frees;
        ck_assert_msg(frees == 1,
                      "round %u: expected the completion on the other thread to free the released task's frame "
                      "once; %llu frees",
                      n, frees);
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

/* This file's cases; task/lazy.c's follow them. */
static const lockstep_case task_cases[] = {
    {&ready_path, 1, "a lazy task has not run before its await, so an await never finds it completed", 7, "a task that completed before the await is not suspended on, and gives its result",
     "steps/01-mutex/README.md, \"The idea\""},
    {&suspend_path, 1, NULL, 0,
     "an await of an unfinished task suspends, and the completion resumes the awaiter once, with the result",
     "steps/01-mutex/README.md, \"The idea\""},
    {&error_propagates, 1, NULL, 0, "a task's error reaches its awaiter on the ready and the suspend path",
     "steps/01-mutex/README.md, \"From C++ to C\""},
    {&deep_await_chain, 1, NULL, 0,
     "100,000 completions resuming each other run at one stack depth: final_suspend returns the awaiter to "
     "the trampoline instead of calling it",
     "steps/01-mutex/README.md, \"From C++ to C\""},
    {&alloc_failure_creates_nothing, 1, NULL, 0,
     "a failed frame allocation returns ENOMEM and creates, runs and leaks nothing",
     "steps/01-mutex/README.md, \"From C++ to C\""},
    {&release_before_completion, 1, "a lazy task released before its await never runs (never_started_if_never_awaited)", 7,
     "releasing an unfinished task keeps its frame until the body finishes, which then frees it",
     "steps/03-no-refcount/README.md, \"The idea\" (steps 01-02: the reference count)"},
    {&release_after_completion, 1, "a lazy task cannot complete unawaited (never_started_if_never_awaited)", 7, "the frame of a finished task is freed by its release, once",
     "steps/03-no-refcount/README.md, \"The idea\" (steps 01-02: the reference count)"},
    {&late_completion, 1, "a lazy task cannot complete between await_ready and await_suspend: it starts in await_suspend", 7,
     "the late path: the task completes between await_ready and await_suspend; the awaiter continues at once "
     "and the frame is freed exactly once",
     "steps/03-no-refcount/README.md, \"Errata this step fixes\" (erratum 1, its consequence: the late path)"},
    {&completion_races_await, 1, "a lazy task's completion cannot race its await: the awaiter is suspended before the body starts", 7,
     "completion racing the await on two threads: no lost wake-up, no double resume, both outcomes occur",
     "steps/02-atomic-handle/README.md, \"The idea\""},
    {&awaiter_released_while_suspended, 3,
     "before abandon() (step 03) the completing task resumes its destroyed awaiter (use after free); "
     "from step 08 a task is released only before its await or after it (no awaiter waits on a running body)", 7,
     "an awaiter destroyed while suspended releases the task; the task's frame lives until its body finishes, "
     "which frees it and resumes nobody",
     "steps/03-no-refcount/README.md, \"Errata this step fixes\" (erratum 1)"},
    {&late_path_across_threads, 1, "a lazy task has no late path: it starts in await_suspend", 7,
     "the late path with the completion on another thread: await_suspend's acquire orders the result before "
     "its read (under ThreadSanitizer: every run)",
     "steps/03-no-refcount/README.md, \"Memory orders\""},
    {&suspend_path_across_threads, 1, "a lazy task has no atomic that orders the hand-over: the body starts on the awaiting thread, and whatever resumes it elsewhere orders it (wait_blocks_until_complete crosses threads)", 7,
     "the suspend path with the resumption on another thread: await_suspend's release publishes the awaiter's "
     "frame (under ThreadSanitizer: every run)",
     "steps/02-atomic-handle/README.md, \"Memory orders\""},
    {&release_then_completion_across_threads, 1, "a lazy task released before its await never runs, so no completion frees it", 7,
     "release before completion, the completion on another thread frees the frame: abandon()'s release "
     "orders the release before that free (under ThreadSanitizer: every run)",
     "steps/03-no-refcount/README.md, \"Errata this step fixes\" (erratum 1, the order)"},
    {&wait_blocks_until_complete, 1, NULL, 0, "simple_task_wait blocks a plain thread until the task completes",
     "steps/01-mutex/README.md, \"From C++ to C\""},
    {0},
};

int main(int argc, char **argv)
{
    const lockstep_case *const topics[] = {task_cases, task_lazy_cases};
    return lockstep_check_topics("task", LOCKSTEP_STEP, topics, sizeof topics / sizeof topics[0], argc, argv);
}
