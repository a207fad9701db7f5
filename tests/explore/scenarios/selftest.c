/*
 * The explorer's own tests: scenarios with a planted bug of each kind the
 * explorer claims to catch. Compiled with hook.h force-included, like a
 * step's sources. Each ctest passes only when the explorer reports the bug.
 */
#include "explore.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdio.h>

const char *const explore_component = "selftest";
const int explore_step = 1;

bool explore_decode(const char *field, const volatile void *obj, uintptr_t value, char *buf, size_t size)
{
    (void)field, (void)obj, (void)value, (void)buf, (void)size;
    return false;
}

/* A scenario's state, one value: every callback gets it as its context
 * (explore.h), zeroed before the search. */
typedef struct selftest_context {
    int r[3];                /* what the threads read, in thread order */
    unsigned long long seen; /* outcomes found, as bits (litmus_bit) */
    bool reader_done;        /* block_reader_then_flag's, for the scenario's wait only */
    long races, flagged_runs; /* race_flagged's, over all schedules */
    bool raced;               /* race_flagged's, this schedule */
    int handed;               /* context_race's: plain data in the context itself */
    atomic_int *counter;      /* the planted bugs' block (setup allocates it, each schedule) */
    int *block;               /* free_races_read's block */
} selftest_context;

const size_t explore_context_size = sizeof(selftest_context);

/* Its fields, for the trace: a race on one names it (explore.h). */
const explore_field explore_context_fields[] = {
    {offsetof(selftest_context, r), sizeof ((selftest_context *)0)->r, "r"},
    {offsetof(selftest_context, seen), sizeof ((selftest_context *)0)->seen, "seen"},
    {offsetof(selftest_context, reader_done), sizeof ((selftest_context *)0)->reader_done, "reader_done"},
    {offsetof(selftest_context, races), sizeof ((selftest_context *)0)->races, "races"},
    {offsetof(selftest_context, flagged_runs), sizeof ((selftest_context *)0)->flagged_runs, "flagged_runs"},
    {offsetof(selftest_context, raced), sizeof ((selftest_context *)0)->raced, "raced"},
    {offsetof(selftest_context, handed), sizeof ((selftest_context *)0)->handed, "handed"},
    {offsetof(selftest_context, counter), sizeof ((selftest_context *)0)->counter, "counter"},
    {offsetof(selftest_context, block), sizeof ((selftest_context *)0)->block, "block"},
};
const size_t explore_context_nfields = sizeof explore_context_fields / sizeof explore_context_fields[0];

/* The planted programs' lock is static, as a program's is. */
static pthread_mutex_t g_m = PTHREAD_MUTEX_INITIALIZER;

static void setup(void *ctx)
{
    selftest_context *c = ctx;
    c->counter = lockstep_alloc(sizeof *c->counter);
    atomic_init(c->counter, 0);
}

static void free_counter(void *ctx) { selftest_context *c = ctx; lockstep_free(c->counter); }
static void nothing(void *ctx) { (void)ctx; }

/* A lock never unlocked: the other thread can never take it. */
static void lock_and_keep(void *ctx) { (void)ctx; pthread_mutex_lock(&g_m); }

/* A lost update: two threads load, then store load + 1. */
static void increment_racy(void *ctx)
{
    selftest_context *c = ctx;
    int v = atomic_load_explicit(c->counter, memory_order_relaxed);
    atomic_store_explicit(c->counter, v + 1, memory_order_relaxed);
}

static void check_two(void *ctx)
{
    selftest_context *c = ctx;
    if (atomic_load_explicit(c->counter, memory_order_relaxed) != 2)
        explore_fail("wrong value", "the counter is %d, expected 2", atomic_load_explicit(c->counter, memory_order_relaxed));
    free_counter(ctx);
}

static void assert_under_lock(void *ctx)
{
    selftest_context *c = ctx;
    (void)c; /* the release preset's -DNDEBUG compiles the assert, its one use, out */
    pthread_mutex_lock(&g_m);
    assert(atomic_load_explicit(c->counter, memory_order_relaxed) == 1 && "planted assert");
    pthread_mutex_unlock(&g_m);
}

static void free_twice(void *ctx) { free_counter(ctx); free_counter(ctx); }

static void use_after_free(void *ctx)
{
    selftest_context *c = ctx;
    atomic_fetch_add_explicit(c->counter, 1, memory_order_relaxed);
}
static void check_nothing(void *ctx) { (void)ctx; }
static void check_free(void *ctx) { free_counter(ctx); }

/* ---- litmus tests: the memory model's own outcome sets -------------------------
 *
 * Each litmus test records what its threads read (the outcome) on every
 * schedule, and its summary checks that the set of outcomes found is
 * exactly the one C11 allows: nothing missing (the model is not too strong)
 * and nothing extra (not too weak). The sets are the classic ones (Batty et
 * al., "Mathematizing C++ Concurrency", POPL 2011; herd7's C11 tests).
 */

/* The planted programs' shared memory is static, as a program's globals
 * are: a race report names it (g_data). What the scenario observes is its
 * context. */
static atomic_int g_x, g_y;
static int g_data;        /* plain memory: its accesses reach datarace.c */

static void litmus_setup(void *ctx)
{
    selftest_context *c = ctx;
    atomic_init(&g_x, 0);
    atomic_init(&g_y, 0);
    g_data = 0;
    c->r[0] = c->r[1] = c->r[2] = -1;
}

static void litmus_begin(void *ctx) { selftest_context *c = ctx; c->seen = 0; }

/* An outcome (two reads, each 0..3 or 42 -> 4) as one bit of the context's seen. */
static int small(int v) { return v == 42 ? 4 : v < 0 ? 5 : v; }
static unsigned long long litmus_bit(int a, int b) { return 1ull << (small(a) * 6 + small(b)); }

static void record_pair(void *ctx) { selftest_context *c = ctx; c->seen |= litmus_bit(c->r[0], c->r[1]); }

static void expect_outcomes(const selftest_context *c, const char *name, const int (*allowed)[2], int n)
{
    unsigned long long want = 0;
    for (int i = 0; i < n; ++i)
        want |= litmus_bit(allowed[i][0], allowed[i][1]);
    char found[256] = "", expected[256] = "";
    size_t lf = 0, le = 0;
    static const int values[] = {0, 1, 2, 3, 42, -1};
    for (int a = 0; a < 6; ++a)
        for (int b = 0; b < 6; ++b) {
            unsigned long long bit = litmus_bit(values[a], values[b]);
            if ((c->seen & bit) && lf < sizeof found)
                lf += (size_t)snprintf(found + lf, sizeof found - lf, " (%d,%d)", values[a], values[b]);
            if ((want & bit) && le < sizeof expected)
                le += (size_t)snprintf(expected + le, sizeof expected - le, " (%d,%d)", values[a], values[b]);
        }
    printf("explore: %s outcomes found:%s\n", name, found);
    if (c->seen != want)
        explore_fail("wrong outcome set", "%s: found {%s }, C11 allows exactly {%s }", name, found, expected);
    printf("explore: %s: exactly the outcomes C11 allows\n", name);
}

/* Message passing: T0 writes the data, then raises the flag; T1 reads the
 * flag, then the data. (r0, r1) = (flag, data). */
static void mp_writer_rel(void *ctx)
{
    (void)ctx;
    atomic_store_explicit(&g_y, 42, memory_order_relaxed);
    atomic_store_explicit(&g_x, 1, memory_order_release);
}
static void mp_reader_acq(void *ctx)
{
    selftest_context *c = ctx;
    c->r[0] = atomic_load_explicit(&g_x, memory_order_acquire);
    c->r[1] = atomic_load_explicit(&g_y, memory_order_relaxed);
}
static void mp_writer_rlx(void *ctx)
{
    (void)ctx;
    atomic_store_explicit(&g_y, 42, memory_order_relaxed);
    atomic_store_explicit(&g_x, 1, memory_order_relaxed);
}
static void mp_reader_rlx(void *ctx)
{
    selftest_context *c = ctx;
    c->r[0] = atomic_load_explicit(&g_x, memory_order_relaxed);
    c->r[1] = atomic_load_explicit(&g_y, memory_order_relaxed);
}
static void mp_rel_acq_summary(void *ctx)
{
    /* Seeing the flag means seeing the data: (1,0) never appears. */
    static const int allowed[][2] = {{0, 0}, {0, 42}, {1, 42}};
    expect_outcomes(ctx, "mp (release/acquire)", allowed, 3);
}
static void mp_rlx_summary(void *ctx)
{
    /* Relaxed: the flag may be seen with the data still 0. */
    static const int allowed[][2] = {{0, 0}, {0, 42}, {1, 42}, {1, 0}};
    expect_outcomes(ctx, "mp (relaxed)", allowed, 4);
}

/* The same with plain data: with release/acquire the reader that saw the
 * flag reads the data without a race; relaxed, the explorer reports it. */
static void mp_plain_writer_rel(void *ctx)
{
    (void)ctx;
    g_data = 42;
    atomic_store_explicit(&g_x, 1, memory_order_release);
}
static void mp_plain_writer_rlx(void *ctx)
{
    (void)ctx;
    g_data = 42;
    atomic_store_explicit(&g_x, 1, memory_order_relaxed);
}
static void mp_plain_reader_acq(void *ctx)
{
    selftest_context *c = ctx;
    if ((c->r[0] = atomic_load_explicit(&g_x, memory_order_acquire)) == 1)
        c->r[1] = g_data;
}
static void mp_plain_reader_rlx(void *ctx)
{
    selftest_context *c = ctx;
    if ((c->r[0] = atomic_load_explicit(&g_x, memory_order_relaxed)) == 1)
        c->r[1] = g_data;
}
static void mp_plain_summary(void *ctx)
{
    static const int allowed[][2] = {{0, -1}, {1, 42}};
    expect_outcomes(ctx, "mp, plain data (release/acquire)", allowed, 2);
}

/* Store buffering: each thread stores to one and loads the other. Without
 * seq_cst, both may read 0. (r0, r1). */
static void sb_left(void *ctx)
{
    selftest_context *c = ctx;
    atomic_store_explicit(&g_x, 1, memory_order_release);
    c->r[0] = atomic_load_explicit(&g_y, memory_order_acquire);
}
static void sb_right(void *ctx)
{
    selftest_context *c = ctx;
    atomic_store_explicit(&g_y, 1, memory_order_release);
    c->r[1] = atomic_load_explicit(&g_x, memory_order_acquire);
}
static void sb_summary(void *ctx)
{
    static const int allowed[][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
    expect_outcomes(ctx, "sb (release/acquire)", allowed, 4);
}

/* Coherence (CoRR): T0 stores 1 then 2; T1 loads twice. The second load
 * never reads older than the first. (r0, r1) = T1's two loads. */
static void corr_writer(void *ctx)
{
    (void)ctx;
    atomic_store_explicit(&g_x, 1, memory_order_relaxed);
    atomic_store_explicit(&g_x, 2, memory_order_relaxed);
}
static void corr_reader(void *ctx)
{
    selftest_context *c = ctx;
    c->r[0] = atomic_load_explicit(&g_x, memory_order_relaxed);
    c->r[1] = atomic_load_explicit(&g_x, memory_order_relaxed);
}
static void corr_summary(void *ctx)
{
    static const int allowed[][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
    expect_outcomes(ctx, "corr (coherence)", allowed, 6);
}

/* Release sequence: T0 writes the data and releases x = 1; T1 does a
 * relaxed fetch_add on x; T2 acquires x and reads the data. Reading 2 (T1's
 * read-modify-write, which continues T0's release sequence when it comes
 * after it) synchronizes with T0: (2,0) never appears. (1,0) does: T1's
 * add may come first, and its 1 heads no sequence. (r0, r1) = (x, data). */
static void rs_writer(void *ctx)
{
    (void)ctx;
    atomic_store_explicit(&g_y, 42, memory_order_relaxed);
    atomic_store_explicit(&g_x, 1, memory_order_release);
}
static void rs_rmw(void *ctx) { (void)ctx; atomic_fetch_add_explicit(&g_x, 1, memory_order_relaxed); }
static void rs_store(void *ctx) { (void)ctx; atomic_store_explicit(&g_x, 2, memory_order_relaxed); }
static void rs_reader(void *ctx)
{
    selftest_context *c = ctx;
    c->r[0] = atomic_load_explicit(&g_x, memory_order_acquire);
    c->r[1] = atomic_load_explicit(&g_y, memory_order_relaxed);
}
static void rs_rmw_summary(void *ctx)
{
    static const int allowed[][2] = {{0, 0}, {0, 42}, {1, 0}, {1, 42}, {2, 42}};
    expect_outcomes(ctx, "release sequence (continued by a fetch_add)", allowed, 5);
}
static void rs_store_summary(void *ctx)
{
    /* A plain store of another thread ends the sequence: (2,0) appears. */
    static const int allowed[][2] = {{0, 0}, {0, 42}, {1, 42}, {2, 0}, {2, 42}};
    expect_outcomes(ctx, "release sequence (ended by another thread's store)", allowed, 5);
}

/* A mutex hands plain data across: no race, and the reader sees 0 or 42. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static void mutex_writer(void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&g_lock);
    g_data = 42;
    pthread_mutex_unlock(&g_lock);
}
static void mutex_reader(void *ctx)
{
    selftest_context *c = ctx;
    pthread_mutex_lock(&g_lock);
    c->r[0] = g_data;
    pthread_mutex_unlock(&g_lock);
    c->r[1] = 0;
}
static void unlocked_writer(void *ctx) { (void)ctx; g_data = 42; }
static void unlocked_reader(void *ctx) { selftest_context *c = ctx; c->r[0] = g_data; }
static void mutex_summary(void *ctx)
{
    static const int allowed[][2] = {{0, 0}, {42, 0}};
    expect_outcomes(ctx, "mutex", allowed, 2);
}

/* Freeing is a write: a block freed by one thread while another's read of
 * it is not ordered before the free. */
static bool reader_done(void *ctx) { return ((const selftest_context *)ctx)->reader_done; }
static void block_setup(void *ctx)
{
    selftest_context *c = ctx;
    litmus_setup(c);
    c->block = lockstep_alloc(sizeof *c->block);
    *c->block = 7;
    c->reader_done = false;
}
static void block_reader_then_flag(void *ctx)
{
    selftest_context *c = ctx;
    c->r[0] = *c->block;
    atomic_store_explicit(&g_x, 1, memory_order_relaxed);
    c->reader_done = true; /* for the scenario's wait only */
}
static void block_free_after_flag(void *ctx)
{
    selftest_context *c = ctx;
    explore_wait_until(reader_done, c, "the reader is done");
    c->r[1] = atomic_load_explicit(&g_x, memory_order_relaxed); /* 1, relaxed: orders nothing */
    lockstep_free(c->block);
}

/* A race on the context's own field: the report names the field, as the
 * scenario's struct spells it, not an address (explore_context_fields). */
static void context_writer(void *ctx) { selftest_context *c = ctx; c->handed = 42; }
static void context_reader(void *ctx) { selftest_context *c = ctx; c->r[0] = c->handed; }

/* A race as a flag (on_race), as herd7 reports it: the schedule goes on,
 * and the litmus front end counts it; every schedule, no bound (.exhaustive). */
static void count_race(void *ctx, const char *what)
{
    selftest_context *c = ctx;
    (void)what;
    ++c->races;
    c->raced = true;
}
static void flag_begin(void *ctx) { selftest_context *c = ctx; c->races = c->flagged_runs = 0; }
static void flag_setup(void *ctx)
{
    selftest_context *c = ctx;
    litmus_setup(c);
    c->raced = false;
}
static void flag_check(void *ctx) { selftest_context *c = ctx; c->flagged_runs += c->raced; }
static void flag_summary(void *ctx)
{
    selftest_context *c = ctx;
    printf("explore: %ld data races flagged, in %ld schedules; the schedules went on\n", c->races, c->flagged_runs);
    if (!c->races || !c->flagged_runs)
        explore_fail("wrong outcome set", "mp_plain_relaxed's race was not flagged");
    printf("explore: races flagged, not failed\n");
}

/* ---- a peek's footprint: the search's dependence (step.c) ---------------------
 *
 * A step that peeks (explore_unchecked) commutes with a step of another
 * thread unless one of the two writes plain memory the other touches: each
 * step's footprint is recorded as it runs (tsan.c's accesses, alloc.c's
 * frees). A peek is not part of an execution, so the reduction's oracle
 * (--check-reduction) cannot tell a footprint ignored or too small; these
 * can. T0 peeks first in the default schedule; only the other order, which
 * the search tries because the footprints meet, shows the planted bug.
 * Each runs the reduced round alone (.exhaustive): the short rounds before
 * it try every interleaving, and would find the bug whatever the
 * footprints said.
 */
static int g_pair[2]; /* plain: the writer writes g_pair[0], never g_pair[1] */

static void pair_setup(void *ctx)
{
    (void)ctx;
    g_pair[0] = g_pair[1] = 0;
}
static void pair_writer(void *ctx)
{
    (void)ctx;
    explore_note("write g_pair[0] = 42");
    g_pair[0] = 42;
}

/* The scenario observing: no race check, but the step's footprint. */
static int peek(const int *p)
{
    explore_unchecked(true);
    int v = *p;
    explore_unchecked(false);
    return v;
}

/* Fails when the writer went first: its write meets the peek's bytes. */
static void peek_written(void *ctx)
{
    (void)ctx;
    int v = peek(&g_pair[0]);
    explore_note("peek at g_pair[0]: %d", v);
    if (v != 0)
        explore_fail("wrong value", "the peek at g_pair[0] read the writer's %d: it ran after the write", v);
}

/* The bytes right after the written ones: the same in either order, so one
 * schedule is all the search needs (exact ranges, not the whole object). */
static void peek_beside(void *ctx)
{
    (void)ctx;
    int v = peek(&g_pair[1]);
    explore_note("peek at g_pair[1]: %d", v);
    if (v != 0)
        explore_fail("wrong value", "the peek at g_pair[1] read %d, which nobody writes", v);
}

/* A free writes the whole block (alloc.c poisons it): a peek after it reads poison. */
static void free_block(void *ctx) { selftest_context *c = ctx; lockstep_free(c->block); }
static void peek_block(void *ctx)
{
    selftest_context *c = ctx;
    int v = peek(c->block);
    explore_note("peek at the block: %#x", (unsigned)v);
    if (v != 7)
        explore_fail("wrong value", "the peek at the block read %#x, not 7: it ran after the free", (unsigned)v);
}

/* ---- mutex and condition calls: dependent only on a common object (step.c) ----
 *
 * Two threads that each lock a mutex of their own commute: the reduced
 * search runs one schedule (own_mutexes). A signal names no mutex, but it
 * is dependent on a wait on its condition: the search must also run the
 * signal first, where the planted wait (no predicate, no loop) then waits
 * for a signal that already came (signal_before_wait); and two mutexes
 * locked in opposite orders still deadlock (lock_order_inversion). All run the
 * reduced round alone (.exhaustive), as the peek tests above do.
 */
static pthread_mutex_t g_own[2] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static int g_own_data[2]; /* each written under its own mutex, by one thread */

static void own_setup(void *ctx)
{
    (void)ctx;
    g_own_data[0] = g_own_data[1] = 0;
}

static void lock_own(int i)
{
    pthread_mutex_lock(&g_own[i]);
    g_own_data[i] = i + 1;
    pthread_mutex_unlock(&g_own[i]);
}
static void lock_own_0(void *ctx) { (void)ctx; lock_own(0); }
static void lock_own_1(void *ctx) { (void)ctx; lock_own(1); }

/* The planted bug: two mutexes locked in opposite orders. Each thread's
 * first lock commutes with the other's (two mutexes); the second locks
 * race, and the search must reverse them to find the deadlock. */
static void lock_0_then_1(void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&g_own[0]);
    pthread_mutex_lock(&g_own[1]);
    pthread_mutex_unlock(&g_own[1]);
    pthread_mutex_unlock(&g_own[0]);
}
static void lock_1_then_0(void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&g_own[1]);
    pthread_mutex_lock(&g_own[0]);
    pthread_mutex_unlock(&g_own[0]);
    pthread_mutex_unlock(&g_own[1]);
}

static pthread_mutex_t g_wait_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_wait_c = PTHREAD_COND_INITIALIZER;

/* The planted bug: a wait with no predicate to check first, so a signal
 * sent before it is lost. */
static void wait_once(void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&g_wait_m);
    pthread_cond_wait(&g_wait_c, &g_wait_m);
    pthread_mutex_unlock(&g_wait_m);
}
static void signal_once(void *ctx) { (void)ctx; pthread_cond_signal(&g_wait_c); }

/* Turns on one condition variable: T0 gives the turn to waiter 0, who
 * gives it to waiter 1. The planted bug: a signal where a broadcast is
 * needed. It wakes one waiter, and POSIX does not say which (mutex.c): if
 * it wakes waiter 1, that one finds it is not its turn and waits again,
 * and waiter 0 sleeps on. Only a search that lets a signal wake any
 * waiter finds it; one that wakes the first (the lower thread) never does
 * (signal_wakes_any_waiter). */
static pthread_mutex_t g_turn_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_turn_c = PTHREAD_COND_INITIALIZER;
static int g_turn; /* whose turn: -1 nobody's yet */

static void turn_setup(void *ctx)
{
    (void)ctx;
    g_turn = -1;
}
static void give_turn(int to)
{
    pthread_mutex_lock(&g_turn_m);
    g_turn = to;
    pthread_cond_signal(&g_turn_c); /* the bug: two threads wait for different turns */
    pthread_mutex_unlock(&g_turn_m);
}
static void wait_turn(int me)
{
    pthread_mutex_lock(&g_turn_m);
    while (g_turn != me)
        pthread_cond_wait(&g_turn_c, &g_turn_m);
    pthread_mutex_unlock(&g_turn_m);
}
static void turn_giver(void *ctx) { (void)ctx; give_turn(0); }
static void waiter_0(void *ctx) { (void)ctx; wait_turn(0); give_turn(1); }
static void waiter_1(void *ctx) { (void)ctx; wait_turn(1); }

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
    {.name = "mp_rel_acq", .min_step = 1, .about = "message passing, release/acquire: the flag seen means the data seen",
     .nthreads = 2, .thread_names = {"writer", "reader"}, .threads = {mp_writer_rel, mp_reader_acq},
     .begin = litmus_begin, .setup = litmus_setup, .check = record_pair, .summary = mp_rel_acq_summary},
    {.name = "mp_relaxed", .min_step = 1, .about = "message passing, relaxed: the flag may be seen before the data",
     .nthreads = 2, .thread_names = {"writer", "reader"}, .threads = {mp_writer_rlx, mp_reader_rlx},
     .begin = litmus_begin, .setup = litmus_setup, .check = record_pair, .summary = mp_rlx_summary},
    {.name = "mp_plain_rel_acq", .min_step = 1, .about = "message passing of plain data, release/acquire: no race",
     .nthreads = 2, .thread_names = {"writer", "reader"}, .threads = {mp_plain_writer_rel, mp_plain_reader_acq},
     .begin = litmus_begin, .setup = litmus_setup, .check = record_pair, .summary = mp_plain_summary},
    {.name = "mp_plain_relaxed", .min_step = 1, .about = "message passing of plain data, relaxed: a data race",
     .nthreads = 2, .thread_names = {"writer", "reader"}, .threads = {mp_plain_writer_rlx, mp_plain_reader_rlx},
     .setup = litmus_setup, .check = check_nothing},
    {.name = "sb", .min_step = 1, .about = "store buffering: both threads may read 0 without seq_cst",
     .nthreads = 2, .thread_names = {"left", "right"}, .threads = {sb_left, sb_right},
     .begin = litmus_begin, .setup = litmus_setup, .check = record_pair, .summary = sb_summary},
    {.name = "corr", .min_step = 1, .about = "read-read coherence: a second load never reads older than the first",
     .nthreads = 2, .thread_names = {"writer", "reader"}, .threads = {corr_writer, corr_reader},
     .begin = litmus_begin, .setup = litmus_setup, .check = record_pair, .summary = corr_summary},
    {.name = "release_sequence_rmw", .min_step = 1, .about = "a fetch_add on another thread continues a release sequence",
     .nthreads = 3, .thread_names = {"writer", "adder", "reader"}, .threads = {rs_writer, rs_rmw, rs_reader},
     .begin = litmus_begin, .setup = litmus_setup, .check = record_pair, .summary = rs_rmw_summary},
    {.name = "release_sequence_store", .min_step = 1, .about = "a plain store on another thread ends a release sequence",
     .nthreads = 3, .thread_names = {"writer", "storer", "reader"}, .threads = {rs_writer, rs_store, rs_reader},
     .begin = litmus_begin, .setup = litmus_setup, .check = record_pair, .summary = rs_store_summary},
    {.name = "mutex_handoff", .min_step = 1, .about = "a mutex hands plain data across: no race",
     .nthreads = 2, .thread_names = {"writer", "reader"}, .threads = {mutex_writer, mutex_reader},
     .begin = litmus_begin, .setup = litmus_setup, .check = record_pair, .summary = mutex_summary},
    {.name = "unlocked_handoff", .min_step = 1, .about = "the same without the mutex: a data race",
     .nthreads = 2, .thread_names = {"writer", "reader"}, .threads = {unlocked_writer, unlocked_reader},
     .setup = litmus_setup, .check = check_nothing},
    {.name = "free_races_read", .min_step = 1, .about = "a free after a relaxed flag races with the other thread's read",
     .nthreads = 2, .thread_names = {"reader", "freer"}, .threads = {block_reader_then_flag, block_free_after_flag},
     .setup = block_setup, .check = check_nothing},
    {.name = "context_race", .min_step = 1, .about = "a data race on a field of the scenario's context, named by its field",
     .nthreads = 2, .thread_names = {"writer", "reader"}, .threads = {context_writer, context_reader},
     .setup = litmus_setup, .check = check_nothing},
    {.name = "race_flagged", .min_step = 1, .about = "mp_plain_relaxed with on_race set: each race is flagged, none fails",
     .nthreads = 2, .thread_names = {"writer", "reader"}, .threads = {mp_plain_writer_rlx, mp_plain_reader_rlx},
     .begin = flag_begin, .setup = flag_setup, .check = flag_check, .summary = flag_summary, .exhaustive = true,
     .on_race = count_race},
    {.name = "peek_after_write", .min_step = 1, .about = "a peek fails if it runs after the other thread's write to its bytes",
     .nthreads = 2, .thread_names = {"peeker", "writer"}, .threads = {peek_written, pair_writer},
     .setup = pair_setup, .check = check_nothing, .exhaustive = true},
    {.name = "peek_beside_write", .min_step = 1, .about = "a peek at the bytes next to another thread's write: one schedule",
     .nthreads = 2, .thread_names = {"peeker", "writer"}, .threads = {peek_beside, pair_writer},
     .setup = pair_setup, .check = check_nothing, .exhaustive = true},
    {.name = "peek_after_free", .min_step = 1, .about = "a peek fails if it runs after the other thread frees its block",
     .nthreads = 2, .thread_names = {"peeker", "freer"}, .threads = {peek_block, free_block},
     .setup = block_setup, .check = check_nothing, .exhaustive = true},
    {.name = "own_mutexes", .min_step = 1, .about = "two threads, each locking its own mutex: one schedule",
     .nthreads = 2, .thread_names = {"a", "b"}, .threads = {lock_own_0, lock_own_1},
     .setup = own_setup, .check = check_nothing, .exhaustive = true},
    {.name = "lock_order_inversion", .min_step = 1, .about = "two mutexes locked in opposite orders deadlock",
     .nthreads = 2, .thread_names = {"a", "b"}, .threads = {lock_0_then_1, lock_1_then_0},
     .setup = own_setup, .check = check_nothing, .exhaustive = true},
    {.name = "signal_before_wait", .min_step = 1, .about = "a wait with no predicate deadlocks if the signal comes first",
     .nthreads = 2, .thread_names = {"waiter", "signaller"}, .threads = {wait_once, signal_once},
     .setup = own_setup, .check = check_nothing, .exhaustive = true},
    {.name = "signal_wakes_any_waiter", .min_step = 1,
     .about = "a signal, not a broadcast, to waiters for different turns deadlocks when it wakes the wrong one",
     .nthreads = 3, .thread_names = {"waiter 0", "waiter 1", "giver"}, .threads = {waiter_0, waiter_1, turn_giver},
     .setup = turn_setup, .check = check_nothing, .exhaustive = true},
};
const size_t explore_nscenarios = sizeof explore_scenarios / sizeof explore_scenarios[0];
