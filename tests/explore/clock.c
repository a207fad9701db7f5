/*
 * Happens-before, kept as vector clocks (Lamport; Mattern; the way loom,
 * CDSChecker and ThreadSanitizer keep it).
 *
 * Each thread u counts its own steps in c[u] of its clock. Its clock's other
 * components say how far each other thread's history happens before u's
 * current point: thread v's step e happens before it iff u's c[v] >= e.
 *
 * A thread's count moves on after every synchronizing operation (model_tick):
 * everything it does between two of them shares one epoch, and whatever it
 * does after a release is a later epoch than the clock the release published,
 * so a thread that acquires that release is not ordered after it.
 *
 * C11 5.1.2.4 (inter-thread happens before, happens before) is built from
 * "synchronizes with" and sequenced-before; a join of the releasing clock
 * into the acquiring thread's clock is exactly one synchronizes-with edge,
 * and the clocks' transitivity is the relation's.
 */
#include "model.h"

#include <string.h>

static vclock g_clock[MODEL_SLOTS];

/* The mutexes' clocks: what the last unlock released. */
typedef struct mutex_clock {
    const void *m;
    vclock clock;
} mutex_clock;
static mutex_clock g_mutexes[16];
static int g_nmutexes;

void model_clock_reset(void)
{
    memset(g_clock, 0, sizeof g_clock);
    /* Epochs start at 1, so that 0 can mean "never". */
    for (int u = 0; u < MODEL_SLOTS; ++u)
        g_clock[u].c[u] = 1;
    g_nmutexes = 0;
}

int model_slot(void)
{
    int self = explore_self();
    return self < 0 ? MODEL_MAIN : self;
}

const vclock *model_clock(int slot) { return &g_clock[slot]; }
uint32_t model_now(int slot) { return g_clock[slot].c[slot]; }
void model_tick(int slot) { ++g_clock[slot].c[slot]; }

void vclock_join(vclock *into, const vclock *from)
{
    for (int u = 0; u < MODEL_SLOTS; ++u)
        if (from->c[u] > into->c[u])
            into->c[u] = from->c[u];
}

bool vclock_is_zero(const vclock *v)
{
    for (int u = 0; u < MODEL_SLOTS; ++u)
        if (v->c[u])
            return false;
    return true;
}

void model_join(int slot, const vclock *from) { vclock_join(&g_clock[slot], from); }

bool model_hb(int u, uint32_t e, int slot)
{
    /* Program order (sequenced-before, 5.1.2.3p3) within one thread. */
    return u == slot || g_clock[slot].c[u] >= e;
}

static vclock *mutex_clock_of(const void *m)
{
    for (int i = 0; i < g_nmutexes; ++i)
        if (g_mutexes[i].m == m)
            return &g_mutexes[i].clock;
    if (g_nmutexes == 16)
        explore_fail("explorer", "more than 16 mutexes in one schedule");
    g_mutexes[g_nmutexes] = (mutex_clock){.m = m};
    return &g_mutexes[g_nmutexes++].clock;
}

/* 5.1.2.4p6-7 (C11 mutexes; POSIX says the same of pthread_mutex_t in
 * XBD 4.12): an unlock synchronizes with the next lock of the same mutex. */
void model_mutex_unlock(const void *m)
{
    int u = model_slot();
    vclock_join(mutex_clock_of(m), &g_clock[u]);
    model_tick(u);
}

void model_mutex_lock(const void *m)
{
    int u = model_slot();
    vclock_join(&g_clock[u], mutex_clock_of(m));
    model_tick(u);
}

/* 7.26.5.1p2 (thrd_create; pthread_create alike): the creation
 * synchronizes with the start of the new thread. */
void model_thread_start(int thread)
{
    vclock_join(&g_clock[thread], &g_clock[MODEL_MAIN]);
    model_tick(MODEL_MAIN);
}

/* 7.26.5.6p2 (thrd_join): the end of the thread synchronizes with the
 * return of the join. */
void model_thread_join(int thread)
{
    vclock_join(&g_clock[MODEL_MAIN], &g_clock[thread]);
    model_tick(MODEL_MAIN);
}
