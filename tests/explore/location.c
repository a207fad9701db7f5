/*
 * Atomic locations: each keeps the stores made to it, in modification
 * order, and a load may read any of them that coherence allows.
 *
 * C11 does not promise that a load reads the newest store. It promises
 * (5.1.2.4p7, and the paragraphs on coherence after the definition of
 * happens-before):
 *
 *   - each atomic object has one modification order of all its stores;
 *   - write-write coherence: a store that happens before another is
 *     earlier in that order (ours are appended as they run, so this holds);
 *   - read-read, read-write and write-read coherence: a load
 *     never reads a store older (in modification order) than one that
 *     happens before it, or than one that a load or store happening before
 *     it read or made.
 *
 * So the newest store a thread has "seen" (one that happens before it, or
 * that a load or store happening before it read or wrote) is the oldest it
 * may read; anything newer is allowed too. A store remembers, per thread,
 * when that thread first saw it (as loom's location does), and
 * location_read_choices says how far back a load may go; which one it reads
 * is the search's decision (point.c asks path.c), passed in as `back`.
 *
 * Read-modify-writes read the newest store (7.17.3p12: "the last value
 * (in the modification order) stored before the write").
 *
 * A release store heads a release sequence (5.1.2.4p10): it and the later
 * stores to the object that are read-modify-writes (by any thread) or
 * stores by the same thread, contiguous. An acquire that reads any store of
 * it synchronizes with the head (p11), so each store carries, per thread,
 * the clock of that thread's release whose sequence it belongs to.
 *
 * The modification order is an array a store is appended to; the next
 * issue's free placement inserts into it instead (location_place is where).
 * Limits, said in the README: stores are placed last, in the order they run
 * (no load buffering); seq_cst is acquire plus release, and a seq_cst load
 * reads the newest store (no total order S yet); a compare-exchange, failed
 * or not, reads the newest store; only the last HISTORY stores are kept.
 */
#include "model.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HISTORY 8 /* stores kept per location, as loom's MAX_ATOMIC_HISTORY */
#define MAX_LOCATIONS 64

typedef struct store {
    uintptr_t value;
    int thread;                   /* who stored it */
    vclock rs[THREADS];           /* rs[v]: clock of v's release whose sequence holds this store */
    uint32_t first_seen[THREADS]; /* first_seen[v]: v's epoch when it first read or wrote it; 0 never */
    int event;                    /* its event (atomic_init's for an initial value); -1: none seen */
} store;

typedef struct location {
    const volatile void *addr;
    size_t size;
    int n;
    bool dropped;         /* stores older than stores[0] were dropped */
    store stores[HISTORY]; /* modification order: stores[n - 1] is the newest */
} location;

static location g_locs[MAX_LOCATIONS];
static int g_nlocs;
static bool g_truncated;

void location_reset(void)
{
    g_nlocs = 0;
    g_truncated = false;
}

bool location_truncated(void) { return g_truncated; }

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
    for (int i = 0; i < g_nlocs; ++i)
        if (g_locs[i].addr == addr)
            return &g_locs[i];
    return NULL;
}

static location *fresh(const volatile void *addr, size_t size)
{
    location *l = find(addr);
    if (!l) {
        if (g_nlocs == MAX_LOCATIONS)
            explore_fail("explorer", "more than %d atomic objects in one schedule", MAX_LOCATIONS);
        l = &g_locs[g_nlocs++];
    }
    *l = (location){.addr = addr, .size = size};
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
    for (int i = 0; i < g_nlocs; ++i) {
        const char *a = (const char *)g_locs[i].addr;
        if (a >= lo && a < hi)
            g_locs[i--] = g_locs[--g_nlocs];
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

/* ---- reading ------------------------------------------------------------------ */

int location_read_choices(const volatile void *obj, size_t size, int thread, int order)
{
    location *l = location_of(obj, size);
    /* The oldest store this thread may still read (the coherence rules above). */
    int oldest = l->n - 1;
    while (oldest > 0 && !seen_by(&l->stores[oldest], thread))
        --oldest;
    if (oldest == 0 && !seen_by(&l->stores[0], thread) && l->dropped)
        g_truncated = true; /* an even older one may have been allowed */
    return order == memory_order_seq_cst ? 1 : l->n - oldest;
}

uintptr_t location_newest(const volatile void *obj, size_t size)
{
    location *l = location_of(obj, size);
    return l->stores[l->n - 1].value;
}

/* The acquire side of 5.1.2.4p11: reading s, an acquire synchronizes with
 * the head of every release sequence s belongs to. */
static bool acquire_from(int thread, const store *s)
{
    bool joined = false;
    for (int v = 0; v < THREADS; ++v) {
        const vclock *head = &s->rs[v];
        if (v != thread && head->c[v] && head->c[v] > clock_of(thread)->c[v]) {
            clock_join(thread, head);
            joined = true;
        }
    }
    return joined;
}

/* Reads the store `back` from the newest into e. */
static store *read_store(location *l, event *e, int back)
{
    store *s = &l->stores[l->n - 1 - back];
    mark_seen(s, e->thread);
    e->read = s->value;
    e->reads_from = s->event;
    e->newest = l->stores[l->n - 1].event;
    e->stale = back > 0;
    e->synchronizes = order_acquires(e->order) && acquire_from(e->thread, s);
    return s;
}

/* ---- writing ------------------------------------------------------------------ */

/* Where a new store goes in the modification order: last. */
static store *location_place(location *l)
{
    if (l->n == HISTORY) {
        memmove(&l->stores[0], &l->stores[1], (HISTORY - 1) * sizeof l->stores[0]);
        --l->n;
        l->dropped = true;
    }
    return &l->stores[l->n++];
}

static void write_store(location *l, event *e, uintptr_t value, bool rmw)
{
    store prev = l->stores[l->n - 1];
    store *s = location_place(l);
    int t = e->thread;
    *s = (store){.value = truncate_to(value, l->size), .thread = t, .event = event_index(e)};
    for (int v = 0; v < THREADS; ++v)
        /* p10: a read-modify-write continues every sequence; a plain
         * store only its own thread's (and ends the others). */
        if (rmw || v == t)
            s->rs[v] = prev.rs[v];
    if (order_releases(e->order))
        s->rs[t] = *clock_of(t);
    mark_seen(s, t);
    location_mem_write((volatile void *)l->addr, l->size, s->value);
    e->stores = true;
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

uintptr_t location_do(event *e, size_t size, int back)
{
    location *l = location_of(e->obj, size);
    e->epoch = clock_now(e->thread);
    switch (e->op) {
    case OP_LOAD:
        read_store(l, e, back);
        break;
    case OP_STORE:
        write_store(l, e, e->stored, false);
        break;
    case OP_RMW:
        read_store(l, e, 0);
        write_store(l, e, modify(e->rmw, e->read, e->stored), true);
        break;
    case OP_CAS:
        read_store(l, e, 0);
        e->ok = e->read == truncate_to(e->expected, size);
        if (e->ok)
            write_store(l, e, e->stored, true);
        break;
    }
    clock_tick(e->thread);
    return e->read;
}
