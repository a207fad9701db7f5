/*
 * The counting, fault-injecting allocator (see alloc.h).
 *
 * Each thread owns a slot of counters. The owner updates them with a relaxed
 * load and a relaxed store, which compile to plain moves: no lock prefix on
 * the hot path, yet readers on other threads are not data races. Slots live
 * on a list under g_lock, which only slot creation, thread exit and the
 * totals readers take. When a thread exits, its counts are folded into
 * g_retired and its slot is freed, so any number of threads can come and go.
 */
#include "lockstep/alloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct slot {
    _Atomic uint64_t allocs, frees, failures;
    struct slot *prev, *next;
} slot;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static slot *g_slots;                   /* live threads' slots, under g_lock */
static lockstep_alloc_counts g_retired; /* exited threads' counts, under g_lock */
static pthread_key_t g_exit_key;        /* its destructor retires the slot */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static _Thread_local slot *t_slot;

/* Fault injection, per thread: the countdown reaches zero on the failing call. */
static _Thread_local bool t_planned;       /* a failure is planned or in force */
static _Thread_local uint64_t t_countdown; /* 0: no failure planned */
static _Thread_local bool t_fail_rest;     /* keep failing once it is reached */
static _Thread_local bool t_failing;       /* every call fails */

/* The one flag the common path of lockstep_alloc tests: the thread has its
 * slot and no failure is planned. Kept equal to fast_now() by every write
 * to t_slot or t_planned. The common path is then one test, the count and
 * malloc: no register saved across malloc, no stack frame (a lazy task's
 * await, a frame's allocation and free and little else, costs a nanosecond
 * less). */
static _Thread_local bool t_fast;

static bool fast_now(void)
{
    return t_slot && !t_planned;
}

static void bump(_Atomic uint64_t *counter)
{
    /* Only the owning thread writes its counters: load + store, not fetch_add. */
    atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + 1, memory_order_relaxed);
}

static void retire_slot(void *arg)
{
    slot *s = arg;
    pthread_mutex_lock(&g_lock);
    g_retired.allocs += atomic_load_explicit(&s->allocs, memory_order_relaxed);
    g_retired.frees += atomic_load_explicit(&s->frees, memory_order_relaxed);
    g_retired.failures += atomic_load_explicit(&s->failures, memory_order_relaxed);
    if (s->prev)
        s->prev->next = s->next;
    else
        g_slots = s->next;
    if (s->next)
        s->next->prev = s->prev;
    pthread_mutex_unlock(&g_lock);
    t_slot = NULL; /* a later TLS destructor that allocates gets a new slot */
    t_fast = false;
    free(s);
}

static void make_exit_key(void)
{
    if (pthread_key_create(&g_exit_key, retire_slot) != 0) {
        fputs("lockstep_alloc: pthread_key_create failed\n", stderr);
        abort();
    }
}

static __attribute__((noinline, cold)) slot *claim_slot(void)
{
    pthread_once(&g_once, make_exit_key);
    slot *s = calloc(1, sizeof *s);
    if (!s) {
        fputs("lockstep_alloc: out of memory for the counters\n", stderr);
        abort();
    }
    pthread_mutex_lock(&g_lock);
    s->next = g_slots;
    if (g_slots)
        g_slots->prev = s;
    g_slots = s;
    pthread_mutex_unlock(&g_lock);
    pthread_setspecific(g_exit_key, s);
    t_slot = s;
    t_fast = fast_now();
    return s;
}

static slot *my_slot(void)
{
    slot *s = t_slot;
    return s ? s : claim_slot();
}

static bool inject_failure(void)
{
    if (t_failing)
        return true;
    if (t_countdown == 0 || --t_countdown != 0)
        return false;
    t_failing = t_fail_rest;
    t_planned = t_fail_rest;
    t_fast = fast_now();
    return true;
}

/* The calls off the common path: the thread's first, and every call while a
 * failure is planned. Out of line (and so are the two below), so that what
 * the callers inline stays small. */
static __attribute__((noinline, cold)) void *alloc_slow(size_t size)
{
    slot *s = my_slot();
    void *p = inject_failure() ? NULL : malloc(size ? size : 1);
    bump(p ? &s->allocs : &s->failures);
    return p;
}

/* malloc failed after the common path counted an allocation: count a
 * failure instead. */
static __attribute__((noinline, cold)) void *recount_as_failure(void)
{
    slot *s = t_slot;
    atomic_store_explicit(&s->allocs, atomic_load_explicit(&s->allocs, memory_order_relaxed) - 1,
                          memory_order_relaxed);
    bump(&s->failures);
    return NULL;
}

void *lockstep_alloc(size_t size)
{
    if (!t_fast)
        return alloc_slow(size);
    /* Counted before malloc, so that only its result is live after it. */
    bump(&t_slot->allocs);
    void *p = malloc(size ? size : 1);
    return p ? p : recount_as_failure();
}

/* A free before the thread's first allocation (it claims the slot). */
static __attribute__((noinline, cold)) void free_slow(void *p)
{
    bump(&my_slot()->frees);
    free(p);
}

void lockstep_free(void *p)
{
    slot *s = t_slot;
    if (!p)
        return;
    if (!s) {
        free_slow(p);
        return;
    }
    bump(&s->frees);
    free(p);
}

static void add_slot(lockstep_alloc_counts *sum, slot *s)
{
    sum->allocs += atomic_load_explicit(&s->allocs, memory_order_relaxed);
    sum->frees += atomic_load_explicit(&s->frees, memory_order_relaxed);
    sum->failures += atomic_load_explicit(&s->failures, memory_order_relaxed);
}

lockstep_alloc_counts lockstep_alloc_totals(void)
{
    pthread_mutex_lock(&g_lock);
    lockstep_alloc_counts sum = g_retired;
    for (slot *s = g_slots; s; s = s->next)
        add_slot(&sum, s);
    pthread_mutex_unlock(&g_lock);
    return sum;
}

lockstep_alloc_counts lockstep_alloc_thread(void)
{
    lockstep_alloc_counts sum = {0, 0, 0};
    add_slot(&sum, my_slot());
    return sum;
}

int64_t lockstep_alloc_live(void)
{
    lockstep_alloc_counts t = lockstep_alloc_totals();
    return (int64_t)(t.allocs - t.frees);
}

void lockstep_alloc_fail_nth(uint64_t n)
{
    t_countdown = n;
    t_fail_rest = false;
    t_failing = false;
    t_planned = n != 0;
    t_fast = fast_now();
}

void lockstep_alloc_fail_after(uint64_t n)
{
    t_countdown = n + 1;
    t_fail_rest = true;
    t_failing = false;
    t_planned = true;
    t_fast = fast_now();
}

void lockstep_alloc_fail_none(void)
{
    lockstep_alloc_fail_nth(0);
}
