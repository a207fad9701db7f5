/*
 * The explorer's own tests: scenarios with a planted bug of each kind the
 * explorer claims to catch. Compiled with hook.h force-included, like a
 * step's sources. Each ctest passes only when the explorer reports the bug.
 */
#include "explore.h"

#include <assert.h>
#include <stdatomic.h>

const char *const explore_component = "selftest";
const int explore_step = 1;

bool explore_decode(const char *field, const volatile void *obj, uintptr_t value, char *buf, size_t size)
{
    (void)field, (void)obj, (void)value, (void)buf, (void)size;
    return false;
}

static pthread_mutex_t g_m = PTHREAD_MUTEX_INITIALIZER;
static atomic_int *g_counter;

static void setup(void)
{
    g_counter = lockstep_alloc(sizeof *g_counter);
    atomic_init(g_counter, 0);
}

static void free_counter(void) { lockstep_free(g_counter); }
static void nothing(void) {}

/* A lock never unlocked: the other thread can never take it. */
static void lock_and_keep(void) { pthread_mutex_lock(&g_m); }

/* A lost update: two threads load, then store load + 1. */
static void increment_racy(void)
{
    int v = atomic_load_explicit(g_counter, memory_order_relaxed);
    atomic_store_explicit(g_counter, v + 1, memory_order_relaxed);
}

static void check_two(void)
{
    if (atomic_load_explicit(g_counter, memory_order_relaxed) != 2)
        explore_fail("wrong value", "the counter is %d, expected 2", atomic_load_explicit(g_counter, memory_order_relaxed));
    free_counter();
}

static void assert_under_lock(void)
{
    pthread_mutex_lock(&g_m);
    assert(atomic_load_explicit(g_counter, memory_order_relaxed) == 1 && "planted assert");
    pthread_mutex_unlock(&g_m);
}

static void free_twice(void) { free_counter(); free_counter(); }

static void use_after_free(void) { atomic_fetch_add_explicit(g_counter, 1, memory_order_relaxed); }
static void check_nothing(void) {}
static void check_free(void) { free_counter(); }

/* One scenario per line that starts with `{.name`: CMake reads name and min_step from it. */
const explore_scenario explore_scenarios[] = {
    {.name = "deadlock", .min_step = 1, .about = "two threads lock a mutex that is never unlocked",
     .nthreads = 2, .thread_names = {"a", "b"}, .threads = {lock_and_keep, lock_and_keep}, .setup = setup,
     .check = check_free},
    {.name = "lost_update", .min_step = 1, .about = "load, then store load + 1, on two threads",
     .nthreads = 2, .thread_names = {"a", "b"}, .threads = {increment_racy, increment_racy}, .setup = setup,
     .check = check_two},
    {.name = "assert", .min_step = 1, .about = "an assert fails", .nthreads = 1, .thread_names = {"a"},
     .threads = {assert_under_lock}, .setup = setup, .check = check_free},
    {.name = "double_free", .min_step = 1, .about = "a block freed twice", .nthreads = 1,
     .thread_names = {"a"}, .threads = {free_twice}, .setup = setup, .check = check_nothing},
    {.name = "use_after_free", .min_step = 1, .about = "an atomic operation on a freed block",
     .nthreads = 2, .thread_names = {"a", "b"}, .threads = {free_counter, use_after_free}, .setup = setup,
     .check = check_nothing},
    {.name = "leak", .min_step = 1, .about = "a block never freed", .nthreads = 1, .thread_names = {"a"},
     .threads = {nothing}, .setup = setup, .check = check_nothing},
};
const size_t explore_nscenarios = sizeof explore_scenarios / sizeof explore_scenarios[0];
