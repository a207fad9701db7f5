/*
 * Executions, as against schedules: which schedules made the same one.
 *
 * Two schedules can differ only in the order of steps that touch nothing
 * in common (T0 stores x while T1 loads y): every thread does the same
 * things and reads the same stores, and nothing a program can observe
 * tells them apart. What the memory model cares about is the execution
 * (RC11, Lahav et al., PLDI 2017, section 3; herd7 counts the same): the
 * events of each thread in program order, the store each load reads
 * (rf), the modification order of each location's stores (mo), and the
 * outcome of each read-modify-write, which rf and mo fix. The seq_cst
 * order psc is derived from these (RC11 asks only that it be acyclic),
 * so it adds nothing to tell two executions apart.
 *
 * At the end of a schedule, execution_is_new() reduces its log to that
 * value, a signature: each event is named by its thread and its place in
 * that thread's program order (never by when it ran), and hashed with the
 * store it read, the store just before its own in the location's final
 * modification order, and for a mutex or condition variable the call on
 * it just before (the order of critical sections is part of an execution
 * with locks), with whom a signal woke and whether a wait woke without
 * one. A set of signatures counts the distinct ones.
 */
#include "search/part.h"

#include <stdlib.h>

/* Whether an event is a step of the program (notes and the like are what
 * the scenario printed about it, and their text may depend on timing). */
static bool counted(const event *e)
{
    switch (e->kind) {
    case EV_ATOMIC: case EV_INIT: case EV_FENCE: case EV_ALLOC: case EV_FREE:
    case EV_LOCK: case EV_UNLOCK: case EV_WAIT: case EV_WOKEN: case EV_SIGNAL: case EV_BROADCAST:
        return true;
    default:
        return false;
    }
}

static bool on_sync_object(const event *e)
{
    return e->kind >= EV_LOCK && e->kind <= EV_BROADCAST;
}

/* splitmix64's finalizer: a good 64-bit mix. */
static uint64_t mix(uint64_t h, uint64_t v)
{
    uint64_t z = h ^ (v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* This file's part of the schedule's world, through its layer's (search/part.h). */
static inline execution_state *st(void) { return &search_now()->execution; }

static int32_t name_of(int i)
{
    return i < 0 ? -1 : st()->name[i];
}

/* The final modification order, rebuilt from each store's place when it
 * was made (event.before: the store it went just before, -1 last), as a
 * list per object: for each store, the one just before it. */

static mo_tail *tail_of(int *ntails, const volatile void *obj)
{
    mo_tail *tails = st()->tails;
    for (int i = 0; i < *ntails; ++i)
        if (tails[i].obj == obj)
            return &tails[i];
    if (*ntails == MAX_EVENTS)
        return &tails[0];
    tails[*ntails] = (mo_tail){obj, -1};
    return &tails[(*ntails)++];
}

static void rebuild_mo(int n)
{
    int ntails = 0;
    for (int i = 0; i < n; ++i) {
        st()->mo_prev[i] = -1;
        const event *e = event_at(i);
        if (!e->stores || (e->kind != EV_ATOMIC && e->kind != EV_INIT))
            continue;
        mo_tail *t = tail_of(&ntails, e->obj);
        if (e->kind == EV_INIT) { /* a location's history starts again here */
            t->last = i;
            continue;
        }
        int after = e->before >= 0 && e->before < i ? st()->mo_prev[e->before] : t->last;
        st()->mo_prev[i] = after;
        if (e->before >= 0 && e->before < i)
            st()->mo_prev[e->before] = i;
        else
            t->last = i;
    }
}

uint64_t execution_signature(void)
{
    int n = event_count();
    if (n > MAX_EVENTS)
        n = MAX_EVENTS;
    int32_t steps[THREADS] = {0};
    for (int i = 0; i < n; ++i) {
        const event *e = event_at(i);
        st()->name[i] = counted(e) ? (int32_t)(e->thread << 20 | steps[e->thread]++) : -1;
    }
    rebuild_mo(n);
    uint64_t h = 0;
    for (int i = 0; i < n; ++i) {
        const event *e = event_at(i);
        if (st()->name[i] < 0)
            continue;
        uint64_t x = mix((uint64_t)st()->name[i], (uint64_t)e->woken << 16 | (uint64_t)e->kind << 8 |
                                                      (uint64_t)e->op << 4 | e->spurious << 2 | e->ok << 1 | e->failed);
        x = mix(x, (uint64_t)name_of(e->reads_from));
        x = mix(x, (uint64_t)name_of(st()->mo_prev[i]));
        if (on_sync_object(e)) /* the call on the same mutex or condition just before */
            for (int j = i - 1; j >= 0; --j)
                if (on_sync_object(event_at(j)) && event_at(j)->obj == e->obj) {
                    x = mix(x, (uint64_t)st()->name[j]);
                    break;
                }
        h += x; /* a sum: the events' order in the log does not matter, only what they are */
    }
    return mix(h, (uint64_t)n);
}

/* ---- the set of executions seen this round -------------------------------------- */


static void set_clear(sigset *set)
{
    free(set->slot);
    *set = (sigset){0};
}

static bool set_contains(const sigset *set, uint64_t sig)
{
    if (!set->cap)
        return false;
    for (size_t j = sig % set->cap; set->slot[j]; j = (j + 1) % set->cap)
        if (set->slot[j] == sig)
            return true;
    return false;
}

static void set_grow(sigset *set)
{
    size_t cap = set->cap ? 2 * set->cap : 1024;
    uint64_t *slot = calloc(cap, sizeof *slot);
    if (!slot)
        abort();
    for (size_t i = 0; i < set->cap; ++i)
        for (size_t j = set->slot[i] % cap; set->slot[i]; j = (j + 1) % cap)
            if (!slot[j]) {
                slot[j] = set->slot[i];
                break;
            }
    free(set->slot);
    set->slot = slot;
    set->cap = cap;
}

/* False if sig was in the set already. */
static bool set_insert(sigset *set, uint64_t sig)
{
    if (2 * (set->count + 1) > set->cap)
        set_grow(set);
    for (size_t j = sig % set->cap;; j = (j + 1) % set->cap) {
        if (set->slot[j] == sig)
            return false;
        if (!set->slot[j]) {
            set->slot[j] = sig;
            ++set->count;
            return true;
        }
    }
}

void execution_reset(void) { set_clear(&st()->seen); }

long execution_count(void) { return (long)st()->seen.count; }

void execution_keep_as_reference(void)
{
    set_clear(&st()->reference);
    st()->reference = st()->seen;
    st()->seen = (sigset){0};
}

long execution_reference_count(void) { return (long)st()->reference.count; }


void execution_begin_schedule(void) { st()->decided = false; }

bool explore_execution_is_new(void)
{
    if (!st()->decided) {
        st()->sig = execution_signature();
        if (st()->sig == 0)
            st()->sig = 1; /* 0 marks an empty slot */
        st()->is_new = set_insert(&st()->seen, st()->sig);
        st()->decided = true;
    }
    return st()->is_new;
}

bool execution_in_reference(void)
{
    explore_execution_is_new();
    return set_contains(&st()->reference, st()->sig);
}
