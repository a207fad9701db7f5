/*
 * Atomic locations: each keeps the stores made to it, in modification
 * order; a load may read any of them that coherence allows, and a store may
 * take any place in that order that coherence and atomicity allow.
 *
 * C11 does not promise that a load reads the newest store. It promises
 * (5.1.2.4p7, and the paragraphs on coherence after the definition of
 * happens-before):
 *
 *   - each atomic object has one modification order of all its stores;
 *   - write-write coherence: a store that happens before another is
 *     earlier in that order;
 *   - read-read, read-write and write-read coherence: a load never reads a
 *     store older (in modification order) than one that happens before it,
 *     or than one that a load or store happening before it read or made;
 *     a store goes after every store its thread has so "seen".
 *
 * So the newest store a thread has "seen" (one that happens before it, or
 * that a load or store happening before it read or wrote) is the oldest it
 * may read, and a store of that thread goes anywhere after it. A store
 * remembers, per thread, when that thread first saw it (as loom's location
 * does); location_choices lists what an operation may do, and which it does
 * is the search's decision (point.c asks path.c), passed in as a number,
 * 0 the default: a load reads the newest store, a store goes last.
 *
 * Read-modify-writes read "the last value (in the modification order)
 * stored before the write" (7.17.3p12; RC11's atomicity, rmw ∩ (fr;mo) = ∅):
 * an RMW reads a store no other RMW has read yet, from the thread's seen
 * one onward, and goes immediately after it; no store ever goes between an
 * RMW and the store it read. A compare-exchange that fails is a load
 * (7.17.7.4p2): it may read any store a load may. A weak one may also fail
 * when it reads the value it expected (p4, a spurious failure): the way
 * after each success, once per site and thread in a schedule (point.c).
 *
 * Release sequences (where C11 and RC11 differ: --model, LOCKSTEP_EXPLORE_MODEL):
 *
 *   - c11: N1570 5.1.2.4p10. A release store heads the maximal contiguous
 *     sub-sequence of the modification order whose later stores are
 *     read-modify-writes (any thread) or stores of the head's thread; a
 *     store of another thread that comes between ends it;
 *   - rc11 (the default; Lahav et al., PLDI 2017, section 3:
 *     rs = [W]; po|loc?; [W]; (rf; rmw)*): the head, every later store of
 *     its own thread to the object whatever comes between, and the
 *     read-modify-writes that read from any of them.
 *
 * An acquire that reads any store of a sequence synchronizes with its head
 * (p11), so each store carries, per thread, the clock of that thread's
 * release whose sequence it belongs to. A release fence makes the thread's
 * later stores carry its clock as if they were releases (7.17.4p2, fence.c),
 * and a relaxed load hands what it read to a later acquire fence (p3-4).
 *
 * No load buffering: a load reads only a store that has already run, so
 * po ∪ rf is acyclic, as RC11's no-thin-air axiom (acyclic(sb ∪ rf))
 * requires; C11 itself would allow more (out-of-thin-air values).
 * Every store an object ever had stays in its history, readable by a load
 * that coherence lets read it (loom keeps the last few; a history here
 * grows as it must). A limit, said in the README: under --model c11 a
 * store never goes between two stores of another thread's release
 * sequence that it would split (the acquires that already read the later
 * one synchronized).
 */
#include "model/part.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* This file's part of the schedule's world, through its layer's (model/part.h). */
static inline location_state *st(void) { return &model_now()->location; }

/* --model, from the search's options when it starts (run.c). */
void location_set_model(bool c11) { st()->c11 = c11; }

/* The candidate search (explore_options.candidates): every store of the
 * location may be read, and a store may go anywhere in its order, as in
 * herd7's candidate executions; consistency.c then judges each. Nothing
 * else changes: a load still reads only a store that has run. */
void location_set_candidates(bool on) { st()->candidates = on; }

void location_reset(void)
{
    st()->nlocs = 0;
}


/* ---- memory ---------------------------------------------------------------- */

/* The object's memory always holds the newest store, so that plain code
 * and the checks see what the hardware would end with. */
uintptr_t location_mem_read(const volatile void *p, size_t size)
{
    switch (size) {
    case 1: return *(const volatile uint8_t *)p;
    case 2: return *(const volatile uint16_t *)p;
    case 4: return *(const volatile uint32_t *)p;
    default: return (uintptr_t) * (const volatile uint64_t *)p;
    }
}

void location_mem_write(volatile void *p, size_t size, uintptr_t v)
{
    switch (size) {
    case 1: *(volatile uint8_t *)p = (uint8_t)v; break;
    case 2: *(volatile uint16_t *)p = (uint16_t)v; break;
    case 4: *(volatile uint32_t *)p = (uint32_t)v; break;
    default: *(volatile uint64_t *)p = (uint64_t)v; break;
    }
}

static uintptr_t truncate_to(uintptr_t v, size_t size)
{
    return size >= sizeof v ? v : v & (((uintptr_t)1 << (8 * size)) - 1);
}

/* ---- locations --------------------------------------------------------------- */

static location *find(const volatile void *addr)
{
    for (int i = 0; i < st()->nlocs; ++i)
        if (st()->locs[i].addr == addr)
            return &st()->locs[i];
    return NULL;
}

/* Room for n stores in l's history, which grows as it must: every store
 * an object ever had stays readable (where loom keeps the last few). */
static void reserve(location *l, int n)
{
    if (n <= l->cap)
        return;
    int cap = l->cap ? l->cap : 8;
    while (cap < n)
        cap *= 2;
    store *grown = realloc(l->stores, (size_t)cap * sizeof *grown);
    if (!grown)
        explore_fail("explorer", "no memory for a history of %d stores", n);
    l->stores = grown;
    l->cap = cap;
}

static location *fresh(const volatile void *addr, size_t size)
{
    location *l = find(addr);
    if (!l) {
        if (st()->nlocs == MAX_LOCATIONS)
            explore_fail("explorer", "more than %d atomic objects in one schedule", MAX_LOCATIONS);
        l = &st()->locs[st()->nlocs++];
    }
    store *stores = l->stores; /* the slot's buffer, kept */
    int cap = l->cap;
    *l = (location){.addr = addr, .size = size, .stores = stores, .cap = cap};
    reserve(l, 1);
    return l;
}

/* A location first met without atomic_init (a static object, or one
 * initialized before the explorer could see it): its value is a store that
 * every thread has seen. */
static location *location_of(const volatile void *addr, size_t size)
{
    location *l = find(addr);
    if (l)
        return l;
    l = fresh(addr, size);
    store *s = &l->stores[l->n++];
    *s = (store){.value = location_mem_read(addr, size), .thread = EXPLORE_MAIN, .event = -1};
    for (int v = 0; v < THREADS; ++v)
        s->first_seen[v] = 1;
    return l;
}

/* A new object at this address: its history starts here (7.17.2.2:
 * atomic_init is a plain, non-atomic initialization). */
void location_init(event *e, size_t size)
{
    location *l = fresh(e->obj, size);
    int t = e->thread;
    l->stores[0] = (store){.value = truncate_to(e->stored, size), .thread = t, .event = event_index(e)};
    l->stores[0].first_seen[t] = clock_now(t);
    l->n = 1;
    location_mem_write((volatile void *)e->obj, size, l->stores[0].value);
}

void location_forget(const volatile void *addr, size_t size)
{
    const char *lo = (const char *)addr, *hi = lo + size;
    for (int i = 0; i < st()->nlocs; ++i) {
        const char *a = (const char *)st()->locs[i].addr;
        if (a >= lo && a < hi) { /* the last location takes its slot; its history's buffer goes to the last */
            location gone = st()->locs[i];
            st()->locs[i--] = st()->locs[--st()->nlocs];
            st()->locs[st()->nlocs] = gone; /* (a copy would leave two slots with one buffer) */
        }
    }
}

static bool seen_by(const store *s, int thread)
{
    const vclock *c = clock_of(thread);
    for (int v = 0; v < THREADS; ++v)
        if (s->first_seen[v] && s->first_seen[v] <= c->c[v])
            return true;
    return false;
}

static void mark_seen(store *s, int thread)
{
    if (!s->first_seen[thread])
        s->first_seen[thread] = clock_now(thread);
}

/* ---- what an operation may do -------------------------------------------------- */

/* The oldest store thread may still read: the newest one it has seen. */
static int oldest_seen(location *l, int thread)
{
    int oldest = l->n - 1;
    while (oldest > 0 && !seen_by(&l->stores[oldest], thread))
        --oldest;
    return oldest;
}

/* c11 only: a plain store of `thread` at index pos would end another
 * thread's contiguous release sequence that stores[pos] continues. */
static bool splits_sequence(const location *l, int pos, int thread)
{
    if (!st()->c11 || st()->candidates || pos >= l->n || pos == 0)
        return false;
    for (int v = 0; v < THREADS; ++v) {
        uint32_t head = l->stores[pos].rs[v].c[v];
        if (v != thread && head && l->stores[pos - 1].rs[v].c[v] == head)
            return true;
    }
    return false;
}

/* Room in st()->ways for every way an operation on l may go: a
 * candidate's read-modify-write reads any of the n stores and goes
 * anywhere after it, n (n + 1) / 2 ways; a compare-exchange may also
 * fail reading any (n more). */
static way *ways_room(const location *l)
{
    int n = (l->n + 1) * (l->n + 2) / 2 + l->n + 1;
    if (n > st()->ways_cap) {
        way *grown = realloc(st()->ways, (size_t)n * sizeof *grown);
        if (!grown)
            explore_fail("explorer", "no memory for %d ways", n);
        st()->ways = grown;
        st()->ways_cap = n;
    }
    return st()->ways;
}

/* Every way e may go, the default (newest store, last place) first. */
static int ways(location *l, const event *e, size_t size, way *out)
{
    /* the main thread's final checks read the final values: the last stores, as herd7's final state */
    bool candidate = st()->candidates && e->thread != EXPLORE_MAIN;
    int oldest = candidate ? 0 : oldest_seen(l, e->thread), n = 0;
    bool atomic = !candidate; /* a candidate may put a store between an RMW and what it read */
    switch (e->op) {
    case OP_LOAD:
        for (int i = l->n - 1; i >= oldest; --i)
            out[n++] = (way){i, -1};
        break;
    case OP_STORE:
        for (int pos = l->n; pos > oldest; --pos)
            if (!(atomic && pos < l->n && l->stores[pos].rmw) && !splits_sequence(l, pos, e->thread))
                out[n++] = (way){-1, pos};
        break;
    case OP_RMW:
        for (int i = l->n - 1; i >= oldest; --i)
            for (int pos = i + 1; pos <= (atomic ? i + 1 : l->n); ++pos) /* a candidate's: anywhere after */
                if (!(atomic && pos < l->n && l->stores[pos].rmw))
                    out[n++] = (way){i, pos};
        break;
    case OP_CAS:
        for (int i = l->n - 1; i >= oldest; --i) {
            bool equal = l->stores[i].value == truncate_to(e->expected, size);
            for (int pos = i + 1; equal && pos <= (atomic ? i + 1 : l->n); ++pos)
                if (!(atomic && pos < l->n && l->stores[pos].rmw))
                    out[n++] = (way){i, pos};
            if (!equal || e->weak) /* fails: a load; a weak one may fail spuriously (7.17.7.4p4) */
                out[n++] = (way){i, -1};
        }
        break;
    }
    return n;
}

int location_choices(const event *e, size_t size)
{
    location *l = location_of(e->obj, size);
    return ways(l, e, size, ways_room(l));
}

/* The acquire side of 5.1.2.4p11: reading s, an acquire synchronizes with
 * the head of every release sequence s belongs to. into: a clock to join
 * them into; returns whether that added anything. */
static bool heads_of(int thread, const store *s, vclock *into)
{
    bool joined = false;
    for (int v = 0; v < THREADS; ++v) {
        const vclock *head = &s->rs[v];
        if (v != thread && head->c[v] && head->c[v] > into->c[v]) {
            clock_vjoin(into, head);
            joined = true;
        }
    }
    return joined;
}

void location_choice_of(const event *e, size_t size, int c, location_choice *out)
{
    location *l = location_of(e->obj, size);
    way *w = ways_room(l);
    ways(l, e, size, w);
    const store *r = w[c].read >= 0 ? &l->stores[w[c].read] : NULL;
    out->reads_from = r ? r->event : -1;
    out->before = w[c].place >= 0 && w[c].place < l->n ? l->stores[w[c].place].event : -1;
    out->ok = e->op != OP_CAS || w[c].place >= 0;
    out->clock = *clock_of(e->thread);
    if (r && order_acquires(e->order))
        heads_of(e->thread, r, &out->clock);
}

/* ---- reading ------------------------------------------------------------------ */

/* Reads stores[i] into e. */
static store read_store(location *l, event *e, int i)
{
    store *s = &l->stores[i];
    mark_seen(s, e->thread);
    e->read = s->value;
    e->reads_from = s->event;
    e->newest = l->stores[l->n - 1].event;
    e->stale = i != l->n - 1;
    vclock now = *clock_of(e->thread);
    if (order_acquires(e->order) && heads_of(e->thread, s, &now)) {
        clock_join(e->thread, &now);
        e->synchronizes = true;
    }
    if (!e->plain) /* RC11's sw: a fence synchronizes through atomic accesses only */
        fence_saw(e->thread, s->rs); /* for a later acquire fence (7.17.4p4) */
    return *s;
}

/* ---- writing ------------------------------------------------------------------ */

/* Makes room at index pos of the modification order; returns pos, moved
 * down by one if the oldest store had to go. */
static int location_place(location *l, int pos)
{
    reserve(l, l->n + 1);
    memmove(&l->stores[pos + 1], &l->stores[pos], (size_t)(l->n - pos) * sizeof l->stores[0]);
    ++l->n;
    return pos;
}

/* e's store of value at index pos; read: what a read-modify-write read. */
static void write_store(location *l, event *e, uintptr_t value, int pos, const store *read)
{
    int t = e->thread;
    pos = location_place(l, pos);
    store *s = &l->stores[pos];
    const store *prev = pos > 0 ? &l->stores[pos - 1] : NULL;
    *s = (store){.value = truncate_to(value, l->size), .thread = t, .rmw = read != NULL, .event = event_index(e)};
    /* A non-atomic write (e->plain) is in no release sequence (RC11's
     * rs = [W]; (po ∩ loc)?; [W ∩ A]; (rf; rmw)*): its rs stays empty. */
    if (!e->plain) {
        if (read) /* a read-modify-write continues every sequence the store it read is in */
            memcpy(s->rs, read->rs, sizeof s->rs);
        else if (st()->c11 && prev) /* N1570 p10: a plain store continues only its own thread's, if contiguous */
            s->rs[t] = prev->rs[t];
        if (!st()->c11) /* RC11: the thread's later stores stay in its release's sequence */
            clock_vjoin(&s->rs[t], &l->released[t]);
        clock_vjoin(&s->rs[t], fence_released(t)); /* 7.17.4p2: after a release fence */
    }
    if (order_releases(e->order)) {
        s->rs[t] = *clock_of(t);
        l->released[t] = *clock_of(t);
    }
    mark_seen(s, t);
    location_mem_write((volatile void *)l->addr, l->size, l->stores[l->n - 1].value);
    e->stores = true;
    e->before = pos + 1 < l->n ? l->stores[pos + 1].event : -1;
    for (int v = 0; v < THREADS; ++v)
        e->rs_head[v] = s->rs[v].c[v];
}

static uintptr_t modify(enum explore_rmw op, uintptr_t old, uintptr_t arg)
{
    switch (op) {
    case EXPLORE_RMW_XCHG: return arg;
    case EXPLORE_RMW_ADD: return old + arg;
    case EXPLORE_RMW_SUB: return old - arg;
    case EXPLORE_RMW_OR: return old | arg;
    case EXPLORE_RMW_AND: return old & arg;
    case EXPLORE_RMW_XOR: return old ^ arg;
    }
    return arg;
}

/* ---- the operations ------------------------------------------------------------ */

uintptr_t location_do(event *e, size_t size, int c)
{
    location *l = location_of(e->obj, size);
    way *w = ways_room(l);
    int n = ways(l, e, size, w);
    if (c < 0 || c >= n)
        c = 0;
    e->epoch = clock_now(e->thread);
    store read;
    switch (e->op) {
    case OP_LOAD:
        read_store(l, e, w[c].read);
        break;
    case OP_STORE:
        write_store(l, e, e->stored, w[c].place, NULL);
        break;
    case OP_RMW:
        read = read_store(l, e, w[c].read);
        write_store(l, e, modify(e->rmw, e->read, e->stored), w[c].place, &read);
        break;
    case OP_CAS:
        read = read_store(l, e, w[c].read);
        e->ok = w[c].place >= 0;
        e->spurious = !e->ok && e->read == truncate_to(e->expected, size);
        if (e->ok)
            write_store(l, e, e->stored, w[c].place, &read);
        break;
    }
    e->clock = *clock_of(e->thread);
    clock_tick(e->thread);
    return e->read;
}

/* The modification order of obj as event indices, oldest first (-1: a
 * store no event made); how many. For the seq_cst check (psc.c). */
int location_mo(const volatile void *obj, int *events, int max)
{
    location *l = find(obj);
    int n = 0;
    for (int i = 0; l && i < l->n && n < max; ++i)
        events[n++] = l->stores[i].event;
    return n;
}
