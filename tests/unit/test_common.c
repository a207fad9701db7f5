/*
 * common/: the allocator, the trampoline, the trigger and the executor.
 * Compiled once (common/ is the same for every step).
 */
#include "check_main.h"

#include "lockstep/alloc.h"
#include "lockstep/coro.h"
#include "lockstep/executor.h"
#include "lockstep/trigger.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

/* ---- allocator ------------------------------------------------------------ */

START_TEST(alloc_counts_blocks)
{
    lockstep_alloc_counts before = lockstep_alloc_totals();
    lockstep_alloc_counts mine = lockstep_alloc_thread();
    void *a = lockstep_alloc(16), *b = lockstep_alloc(0);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(lockstep_alloc_live(), (int64_t)(before.allocs - before.frees) + 2);
    lockstep_free(a);
    lockstep_free(b);
    lockstep_free(NULL); /* ignored, not counted */
    lockstep_alloc_counts after = lockstep_alloc_totals();
    ck_assert_uint_eq(after.allocs - before.allocs, 2);
    ck_assert_uint_eq(after.frees - before.frees, 2);
    ck_assert_uint_eq(lockstep_alloc_thread().allocs - mine.allocs, 2);
}
END_TEST

START_TEST(alloc_fail_nth_fails_once)
{
    lockstep_free(lockstep_alloc(8)); /* a thread that has allocated before */
    lockstep_alloc_counts before = lockstep_alloc_totals();
    lockstep_alloc_fail_nth(3);
    void *a = lockstep_alloc(8), *b = lockstep_alloc(8), *c = lockstep_alloc(8), *d = lockstep_alloc(8);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_null(c);
    ck_assert_ptr_nonnull(d);
    lockstep_free(a);
    lockstep_free(b);
    lockstep_free(d);
    lockstep_alloc_counts after = lockstep_alloc_totals();
    ck_assert_uint_eq(after.allocs - before.allocs, 3);
    ck_assert_uint_eq(after.failures - before.failures, 1);
}
END_TEST

/* A sanitizer's allocator reports an impossible size and aborts instead of
 * returning NULL. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MALLOC_CAN_FAIL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MALLOC_CAN_FAIL 0
#endif
#endif
#ifndef MALLOC_CAN_FAIL
#define MALLOC_CAN_FAIL 1
#endif

START_TEST(alloc_counts_a_malloc_failure)
{
#if MALLOC_CAN_FAIL
    volatile size_t too_big = SIZE_MAX; /* no object is that large: malloc returns NULL */
    lockstep_alloc_counts before = lockstep_alloc_thread();
    ck_assert_ptr_null(lockstep_alloc(too_big));
    lockstep_alloc_counts after = lockstep_alloc_thread();
    ck_assert_uint_eq(after.allocs - before.allocs, 0);
    ck_assert_uint_eq(after.failures - before.failures, 1);
#else
    lockstep_skip_after_checks("a sanitizer's allocator aborts on an impossible size instead of returning NULL");
#endif
}
END_TEST

START_TEST(alloc_fail_after_keeps_failing)
{
    lockstep_alloc_fail_after(1);
    void *a = lockstep_alloc(8);
    ck_assert_ptr_nonnull(a);
    for (int i = 0; i < 5; ++i)
        ck_assert_ptr_null(lockstep_alloc(8));
    lockstep_alloc_fail_none();
    void *b = lockstep_alloc(8);
    ck_assert_ptr_nonnull(b);
    lockstep_free(a);
    lockstep_free(b);

    lockstep_alloc_fail_after(0); /* the very next one fails */
    ck_assert_ptr_null(lockstep_alloc(8));
}
END_TEST

typedef struct thread_allocs {
    void *kept; /* allocated on the thread, freed by the main thread */
} thread_allocs;

static void *allocate_on_thread(void *arg)
{
    thread_allocs *t = arg;
    void *tmp = lockstep_alloc(32);
    lockstep_free(tmp);
    t->kept = lockstep_alloc(32);
    return NULL;
}

START_TEST(alloc_counts_survive_thread_exit)
{
    lockstep_alloc_counts before = lockstep_alloc_totals();
    lockstep_alloc_fail_after(0); /* injected on this thread only */
    thread_allocs t = {NULL};
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, allocate_on_thread, &t), 0);
    pthread_join(th, NULL);
    lockstep_alloc_fail_none();
    ck_assert_ptr_nonnull(t.kept); /* the other thread was not affected */

    lockstep_alloc_counts mid = lockstep_alloc_totals(); /* that thread has exited */
    ck_assert_uint_eq(mid.allocs - before.allocs, 2);
    ck_assert_uint_eq(mid.frees - before.frees, 1);
    lockstep_free(t.kept); /* a block from another thread */
    ck_assert_uint_eq(lockstep_alloc_totals().frees - before.frees, 2);
}
END_TEST

/* ---- trampoline: a chain of transfers runs in constant stack --------------- */

#define HOPS 100000

typedef struct hop_frame {
    lockstep_coro coro;
    struct hop_frame *next; /* transfer here when resumed */
    int *count;
    uintptr_t *lowest, *highest;
} hop_frame;

static lockstep_coro *hop_resume(lockstep_coro *self)
{
    hop_frame *f = (hop_frame *)self;
    /* the real frame: under ASan a local's address may be on its fake stack */
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    *f->lowest = sp < *f->lowest ? sp : *f->lowest;
    *f->highest = sp > *f->highest ? sp : *f->highest;
    ++*f->count;
    self->resume_point = LOCKSTEP_CORO_DONE;
    return f->next ? &f->next->coro : NULL;
}

START_TEST(trampoline_keeps_stack_flat)
{
    int count = 0;
    uintptr_t lowest = UINTPTR_MAX, highest = 0;
    hop_frame *first = NULL;
    for (int i = 0; i < HOPS; ++i) {
        hop_frame *f = (hop_frame *)lockstep_coro_new(sizeof *f, hop_resume, lockstep_coro_free);
        lockstep_assert_in_loop(f != NULL, "frame %d of %d could not be allocated", i, HOPS);
        f->next = first;
        f->count = &count;
        f->lowest = &lowest;
        f->highest = &highest;
        first = f;
    }
    lockstep_coro_resume(&first->coro);
    ck_assert_int_eq(count, HOPS);
    ck_assert_msg(highest - lowest < 256, "%d transfers used %lu bytes of stack", HOPS,
                  (unsigned long)(highest - lowest));
    for (hop_frame *f = first; f;) {
        hop_frame *next = f->next;
        lockstep_assert_in_loop(lockstep_coro_done(&f->coro), "a frame of the chain did not run to its end");
        lockstep_coro_destroy(&f->coro);
        f = next;
    }
}
END_TEST

/* ---- trigger --------------------------------------------------------------- */

typedef struct counter_frame {
    lockstep_coro coro;
    int resumes;
} counter_frame;

static lockstep_coro *counter_resume(lockstep_coro *self)
{
    ++((counter_frame *)self)->resumes;
    return NULL;
}

START_TEST(trigger_resumes_its_waiter_once)
{
    counter_frame *c = (counter_frame *)lockstep_coro_new(sizeof *c, counter_resume, lockstep_coro_free);
    ck_assert_ptr_nonnull(c);
    lockstep_trigger t;
    lockstep_trigger_init(&t);
    lockstep_trigger_fire(&t); /* nobody waiting: nothing happens */
    ck_assert(!lockstep_trigger_await_ready(&t));
    ck_assert(lockstep_trigger_await_suspend(&t, &c->coro));
    lockstep_trigger_fire(&t);
    lockstep_trigger_fire(&t); /* one-shot: disarmed */
    ck_assert_int_eq(c->resumes, 1);
    lockstep_coro_destroy(&c->coro);
}
END_TEST

/* ---- executor -------------------------------------------------------------- */

/* hopper: co_await ex; (count, note the thread) -- `hops` times. */
typedef struct hopper_frame {
    lockstep_coro coro;
    lockstep_executor *ex;
    lockstep_executor_awaiter aw;
    int hops;
    atomic_int *ran;
    pthread_t origin;
    atomic_int *on_origin;
} hopper_frame;

static lockstep_coro *hopper_resume(lockstep_coro *self)
{
    hopper_frame *f = (hopper_frame *)self;
    if (self->resume_point > 0) { /* resumed by a worker */
        atomic_fetch_add_explicit(f->ran, 1, memory_order_relaxed);
        if (pthread_equal(pthread_self(), f->origin))
            atomic_fetch_add_explicit(f->on_origin, 1, memory_order_relaxed);
    }
    if (self->resume_point == f->hops) {
        self->resume_point = LOCKSTEP_CORO_DONE;
        return NULL;
    }
    self->resume_point += 1;
    lockstep_executor_await_suspend(f->ex, &f->aw, self); /* always suspends */
    return NULL;
}

START_TEST(executor_runs_everything_posted)
{
    enum { COROS = 200, HOPS_EACH = 5 };
    lockstep_executor ex;
    ck_assert_int_eq(lockstep_executor_init(&ex, 2), 0);
    atomic_int ran, on_origin;
    atomic_init(&ran, 0);
    atomic_init(&on_origin, 0);
    hopper_frame *h[COROS];
    for (int i = 0; i < COROS; ++i) {
        h[i] = (hopper_frame *)lockstep_coro_new(sizeof(hopper_frame), hopper_resume, lockstep_coro_free);
        ck_assert_ptr_nonnull(h[i]);
        h[i]->ex = &ex;
        h[i]->hops = HOPS_EACH;
        h[i]->ran = &ran;
        h[i]->origin = pthread_self();
        h[i]->on_origin = &on_origin;
        lockstep_coro_resume(&h[i]->coro); /* hops onto the executor */
    }
    lockstep_executor_destroy(&ex); /* runs everything, including re-posts */
    ck_assert_int_eq(atomic_load(&ran), COROS * HOPS_EACH);
    ck_assert_int_eq(atomic_load(&on_origin), 0);
    for (int i = 0; i < COROS; ++i) {
        ck_assert(lockstep_coro_done(&h[i]->coro));
        lockstep_coro_destroy(&h[i]->coro);
    }
}
END_TEST

START_TEST(executor_rejects_bad_thread_count)
{
    lockstep_executor ex;
    ck_assert_int_eq(lockstep_executor_init(&ex, 0), EINVAL);
    ck_assert_int_eq(lockstep_executor_init(&ex, LOCKSTEP_EXECUTOR_MAX_THREADS + 1), EINVAL);
}
END_TEST

int main(int argc, char **argv)
{
    static const lockstep_case cases[] = {
        {&alloc_counts_blocks, 1, NULL, 0, "the allocator counts allocations and frees", "common/include/lockstep/alloc.h"},
        {&alloc_fail_nth_fails_once, 1, NULL, 0, "lockstep_alloc_fail_nth makes exactly the nth allocation fail, once", "common/include/lockstep/alloc.h"},
        {&alloc_counts_a_malloc_failure, 1, NULL, 0, "a call that malloc itself fails counts as a failure, not an allocation", "common/include/lockstep/alloc.h"},
        {&alloc_fail_after_keeps_failing, 1, NULL, 0, "lockstep_alloc_fail_after lets n allocations through, then fails every one", "common/include/lockstep/alloc.h"},
        {&alloc_counts_survive_thread_exit, 1, NULL, 0, "a thread's counts stay in the totals after it exits", "common/include/lockstep/alloc.h"},
        {&trampoline_keeps_stack_flat, 1, NULL, 0, "coroutines that return the next one to resume run at one stack depth", "common/include/lockstep/coro.h"},
        {&trigger_resumes_its_waiter_once, 1, NULL, 0, "a trigger resumes its waiter once", "common/include/lockstep/trigger.h"},
        {&executor_runs_everything_posted, 1, NULL, 0, "the executor runs every coroutine posted to it, on its threads", "common/include/lockstep/executor.h"},
        {&executor_rejects_bad_thread_count, 1, NULL, 0, "the executor refuses 0 or too many threads with EINVAL", "common/include/lockstep/executor.h"},
    };
    return lockstep_check_main("common", 1, cases, sizeof cases / sizeof cases[0], argc, argv);
}
