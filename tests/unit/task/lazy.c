/*
 * simple_task unit tests: what a lazy task adds (step 08). Its body starts
 * at the first await, never before; a task released unawaited runs nothing
 * and frees everything its frame owns.
 *
 * Part of the task's suite (tests/unit/test_task.c runs it).
 */
#include "task_cases.h"

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
    triggered_fixture fx;
    triggered_setup(&fx, 1);
    ck_assert_msg(fx.trig.waiter == NULL, "creating a lazy task ran its body: it armed the trigger");
    int runs = 0;
    simple_task c = {0};
    ck_assert_int_eq(counted_task(&c, &runs), 0);
    simple_task_release(&fx.task);
    simple_task_release(&c);
    ck_assert_msg(runs == 0 && fx.trig.waiter == NULL,
                  "releasing a task that was never awaited ran its body (%d runs)", runs);
    assert_frames_freed(fx.before, 2, "the release to free each unstarted frame once");
}
END_TEST

START_TEST(started_exactly_once)
{
    int runs = 0;
    simple_task t = {0};
    ck_assert_int_eq(counted_task(&t, &runs), 0);
    ck_assert_int_eq(runs, 0);
    int driver_resumes = 0;
    driver_frame *d = driver_start(t, &driver_resumes);
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
    plus_one_wrap(&t, 2);
    chain_record_start();
    simple_task_release(&t);
    chain_record_stop();
    ck_assert_msg(g_chain_resumes == 0, "releasing an unstarted task ran a body");
    assert_frames_freed(before, 3, "the release to free the three frames (the outer task owns the inner ones)");
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
    plus_one_wrap(&t, LAZY_CHAIN_DEPTH);
    ck_assert_int_eq(lockstep_alloc_live(), LAZY_CHAIN_DEPTH + 1);
    chain_record_start();
    driver_frame *d = driver_start(t, NULL);
    chain_record_stop();
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
    chain_record_start();
    simple_task_release(&t);
    chain_record_stop();
    ck_assert_int_eq(g_chain_resumes, 0);
    alloc_delta n = allocs_since(before);
    ck_assert_uint_eq(n.allocs, (unsigned)made + 1);
    ck_assert_uint_eq(n.frees, (unsigned)made + 1);
    ck_assert_uint_eq(n.failures, 1);
}
END_TEST

const lockstep_case task_lazy_cases[] = {
    {&never_started_if_never_awaited, 8, "tasks start when created before step 08", 0,
     "a lazy task's body does not run at its creation, nor at its release if it was never awaited; the "
     "release frees its frame",
     "steps/08-lazy-task/README.md, \"The idea\""},
    {&started_exactly_once, 8, "tasks start when created before step 08", 0,
     "the first await runs the body once, after the awaiter is suspended; so does simple_task_wait",
     "steps/08-lazy-task/README.md, \"The idea\""},
    {&released_unstarted_leaks_nothing, 8, "tasks start when created before step 08", 0,
     "releasing an unstarted task frees its frame and what its parameters own, running nothing",
     "steps/08-lazy-task/README.md, \"What a lazy task gives up\""},
    {&lazy_chain_million, 8, "tasks start when created before step 08 (deep_await_chain covers them)", 0,
     "1,000,000 awaits hand over inwards and back outwards at one stack depth: await_suspend returns the body "
     "to the trampoline",
     "steps/08-lazy-task/README.md, \"The idea\""},
    {&alloc_failure_leaves_nothing, 8, "tasks start when created before step 08 (alloc_failure_creates_nothing)", 0,
     "a failed allocation while building a chain of lazy tasks creates nothing, and releasing the chain "
     "frees every frame without running it",
     "steps/08-lazy-task/README.md, \"What a lazy task gives up\""},
    {0},
};
