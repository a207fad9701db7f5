/*
 * Atomic locations: each keeps the stores made to it, in modification
 * order, and a load chooses which of them it reads.
 *
 * C11 does not promise that a load reads the newest store. It promises
 * (5.1.2.4, the paragraphs on modification order and coherence):
 *
 *   - each atomic object has one modification order of all its stores;
 *   - write-write coherence: a store that happens before another is earlier
 *     in that order (ours are appended as they run, so this holds);
 *   - read-read, read-write and write-read coherence: a load never reads a
 *     store older (in modification order) than one that happens before it,
 *     or than one that a load or store happening before it read or made.
 *
 * So the newest store a thread has "seen" (one that happens before it, or
 * that a load or store happening before it read or wrote) is the oldest it
 * may read; anything newer than that is allowed. That is how loom keeps it
 * (a store remembers, per thread, when that thread first saw it), and the
 * explorer branches on the choice (explore_choose in sched.c): reading an
 * older store costs one unit of the search's bound, like a preemption.
 *
 * Read-modify-write operations always read the newest store (7.17.3:
 * "the last value (in the modification order) stored before the write").
 *
 * A release store heads a release sequence (5.1.2.4p10): it and the later
 * stores to the object that are read-modify-writes (by any thread) or
 * stores by the same thread. An acquire that reads any store of it
 * synchronizes with the head (p11), so each store carries, per thread, the
 * clock of that thread's release whose sequence it belongs to.
 *
 * Limits, said in the README: stores are appended in the order they run (C11
 * would also allow a store to be placed before a store it does not know
 * of: load buffering and out-of-thin-air results are never produced);
 * seq_cst operations are acquire/release and a seq_cst load reads the
 * newest store (no step uses seq_cst; there is no single total order S);
 * fences are rejected (hook.h); a compare-exchange's failure, like its
 * success, reads the newest store; a weak one never fails spuriously.
 */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HISTORY 8        /* stores kept per location, as loom's MAX_ATOMIC_HISTORY */
#define MAX_LOCATIONS 64
#define MAX_EVENTS 2048

typedef struct store {
    uintptr_t value;
    int slot;                         /* who stored it */
    uint32_t epoch;                   /* at which of its steps */
    int order;
    vclock rs[MODEL_SLOTS];           /* rs[v]: clock of v's release whose sequence holds this store */
    uint32_t first_seen[MODEL_SLOTS]; /* first_seen[v]: v's epoch when it first read or wrote it; 0 never */
    int event;                        /* its event (the graph, the explanations) */
} store;

typedef struct location {
    const volatile void *addr;
    size_t size;
    int n;
    bool dropped; /* stores older than stores[0] were dropped */
    store stores[HISTORY];
} location;

static location g_locs[MAX_LOCATIONS];
static int g_nlocs;
static bool g_truncated;

/* The events of this schedule, for the graph and the race explanations. */
typedef struct event_extra {
    int order;
    uint32_t epoch;
    uint32_t rs_epoch[MODEL_SLOTS]; /* of the store it made: the heads of its release sequences */
    int newest;                     /* a load: the newest store's event when it read */
} event_extra;
static model_event g_events[MAX_EVENTS];
static event_extra g_extra[MAX_EVENTS];
static int g_nevents;
static int g_pending = -1; /* the event whose trace line is being written */
static char g_annotation[96];

void model_history_reset(void)
{
    g_nlocs = 0;
    g_truncated = false;
    g_nevents = 0;
    g_pending = -1;
    g_annotation[0] = '\0';
}

bool model_history_truncated(void) { return g_truncated; }
int model_nevents(void) { return g_nevents; }
const model_event *model_events(void) { return g_events; }
const char *model_annotation(void) { return g_annotation; }

void model_logged(int trace_line)
{
    if (g_pending >= 0)
        g_events[g_pending].trace_line = trace_line;
    g_pending = -1;
    g_annotation[0] = '\0';
}

static bool is_acquire(int order)
{
    return order == MO_ACQUIRE || order == MO_CONSUME || order == MO_ACQ_REL || order == MO_SEQ_CST;
}

static bool is_release(int order) { return order == MO_RELEASE || order == MO_ACQ_REL || order == MO_SEQ_CST; }

static const char *order_text(int order)
{
    static const char *const names[] = {"relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"};
    return order >= 0 && order <= 5 ? names[order] : "?";
}

/* ---- --weaken FILE:LINE=ORDER ----------------------------------------------------
 *
 * Runs the step as if the operation at FILE:LINE had a weaker order, with
 * no rebuild: what a walkthrough shows, and what a student tries before
 * editing a copy. Both orders of a compare-exchange are weakened to at most
 * the given one. */

typedef struct weakening {
    char file[64];
    int line;
    int order;
} weakening;
static weakening g_weaken[8];
static int g_nweaken;

bool explore_weaken(const char *spec)
{
    static const char *const names[] = {"relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"};
    const char *colon = strchr(spec, ':'), *eq = strchr(spec, '=');
    if (!colon || !eq || eq < colon || g_nweaken == 8 || (size_t)(colon - spec) >= sizeof g_weaken[0].file)
        return false;
    weakening *w = &g_weaken[g_nweaken];
    snprintf(w->file, sizeof w->file, "%.*s", (int)(colon - spec), spec);
    w->line = atoi(colon + 1);
    w->order = -1;
    for (int i = 0; i < 6; ++i)
        if (strcmp(eq + 1, names[i]) == 0)
            w->order = i;
    if (w->line <= 0 || w->order < 0)
        return false;
    ++g_nweaken;
    return true;
}

static int strength(int order)
{
    /* relaxed < acquire, release < acq_rel < seq_cst; consume as acquire */
    return order == MO_RELAXED ? 0 : order == MO_ACQ_REL ? 2 : order == MO_SEQ_CST ? 3 : 1;
}

static const char *base_name(const char *file)
{
    const char *slash = file ? strrchr(file, '/') : NULL;
    return slash ? slash + 1 : file ? file : "";
}

/* The order the operation at the current site runs with. */
static int effective(int order)
{
    for (int i = 0; i < g_nweaken; ++i)
        if (g_weaken[i].line == explore_site_line && strcmp(g_weaken[i].file, base_name(explore_site_file)) == 0) {
            int w = g_weaken[i].order;
            if (strength(w) < strength(order))
                return w;
        }
    return order;
}

void explore_weaken_args(char *buf, size_t size)
{
    static const char *const names[] = {"relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"};
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < g_nweaken && len < size; ++i)
        len += (size_t)snprintf(buf + len, size - len, " --weaken %s:%d=%s", g_weaken[i].file, g_weaken[i].line,
                                names[g_weaken[i].order]);
}

const char *explore_weakened_order(const char *file, int line)
{
    static const char *const names[] = {"relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"};
    for (int i = 0; i < g_nweaken; ++i)
        if (g_weaken[i].line == line && strcmp(g_weaken[i].file, base_name(file)) == 0)
            return names[g_weaken[i].order];
    return NULL;
}

/* ---- memory ---------------------------------------------------------------- */

/* The object's memory always holds the newest store, so that plain code
 * and the checks see what the hardware would end with. */
static uintptr_t read_mem(const volatile void *p, size_t size)
{
    switch (size) {
    case 1: return *(const volatile uint8_t *)p;
    case 2: return *(const volatile uint16_t *)p;
    case 4: return *(const volatile uint32_t *)p;
    default: return (uintptr_t) * (const volatile uint64_t *)p;
    }
}

static void write_mem(volatile void *p, size_t size, uintptr_t v)
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
    *s = (store){.value = read_mem(addr, size), .slot = MODEL_MAIN, .order = MO_RELAXED, .event = -1};
    for (int v = 0; v < MODEL_SLOTS; ++v)
        s->first_seen[v] = 1;
    return l;
}

void model_forget(const volatile void *addr, size_t size)
{
    const char *lo = (const char *)addr, *hi = lo + size;
    for (int i = 0; i < g_nlocs; ++i) {
        const char *a = (const char *)g_locs[i].addr;
        if (a >= lo && a < hi)
            g_locs[i--] = g_locs[--g_nlocs];
    }
}

static bool seen_by(const store *s, int slot)
{
    const vclock *c = model_clock(slot);
    for (int v = 0; v < MODEL_SLOTS; ++v)
        if (s->first_seen[v] && s->first_seen[v] <= c->c[v])
            return true;
    return false;
}

static void mark_seen(store *s, int slot)
{
    if (!s->first_seen[slot])
        s->first_seen[slot] = model_now(slot);
}

/* ---- events ------------------------------------------------------------------ */

static int new_event(int slot, const char *what, const char *field, int order, bool is_store, bool is_load)
{
    if (g_nevents == MAX_EVENTS)
        return g_pending = -1;
    int i = g_nevents++;
    model_event *e = &g_events[i];
    *e = (model_event){.slot = slot, .file = explore_site_file, .line = explore_site_line, .is_store = is_store,
                       .is_load = is_load, .reads_from = -1};
    char name[64];
    snprintf(e->text, sizeof e->text, "%s %s [%s]", what, explore_field(field, name, sizeof name), order_text(order));
    g_extra[i] = (event_extra){.order = order, .epoch = model_now(slot), .newest = -1};
    return g_pending = i;
}

static void record_store(int ev, const store *s)
{
    if (ev < 0)
        return;
    for (int v = 0; v < MODEL_SLOTS; ++v)
        g_extra[ev].rs_epoch[v] = s->rs[v].c[v];
}

/* The acquire side of 5.1.2.4p11: reading s, an acquire synchronizes with
 * the head of every release sequence s belongs to. */
static bool acquire_from(int slot, const store *s)
{
    bool joined = false;
    for (int v = 0; v < MODEL_SLOTS; ++v)
        if (v != slot && !vclock_is_zero(&s->rs[v]) && s->rs[v].c[v] > model_clock(slot)->c[v]) {
            model_join(slot, &s->rs[v]);
            joined = true;
        }
    return joined;
}

/* Appends a store (newest in modification order). prev: the store it
 * follows, for the release sequences it continues. */
static store *append(location *l, int slot, uintptr_t value, int order, bool rmw)
{
    store prev = l->stores[l->n - 1];
    if (l->n == HISTORY) {
        memmove(&l->stores[0], &l->stores[1], (HISTORY - 1) * sizeof l->stores[0]);
        --l->n;
        l->dropped = true;
    }
    store *s = &l->stores[l->n++];
    *s = (store){.value = truncate_to(value, l->size), .slot = slot, .epoch = model_now(slot), .order = order,
                 .event = g_pending};
    for (int v = 0; v < MODEL_SLOTS; ++v)
        /* p10: a read-modify-write continues every sequence; a plain
         * store only its own thread's (and ends the others). */
        if (rmw || v == slot)
            s->rs[v] = prev.rs[v];
    if (is_release(order))
        s->rs[slot] = *model_clock(slot);
    mark_seen(s, slot);
    write_mem((volatile void *)l->addr, l->size, s->value);
    record_store(g_pending, s);
    return s;
}

/* ---- the operations hook.h calls ---------------------------------------------- */

void explore_atomic_init(volatile void *obj, size_t size, uintptr_t value, const char *file, int line)
{
    model_init_as_write(obj, size, file, line);
    /* A new object at this address: its history starts here (7.17.2.2:
     * atomic_init is a plain, non-atomic initialization). */
    location *l = fresh(obj, size);
    int slot = model_slot();
    l->stores[0] = (store){.value = truncate_to(value, size), .slot = slot, .epoch = model_now(slot),
                           .order = MO_RELAXED, .event = -1};
    l->n = 1;
    mark_seen(&l->stores[0], slot);
    write_mem(obj, size, l->stores[0].value);
}

uintptr_t explore_atomic_load(const volatile void *obj, size_t size, int order, const char *field)
{
    order = effective(order);
    int slot = model_slot();
    location *l = location_of(obj, size);
    int ev = new_event(slot, "load", field, order, false, true);
    model_atomic_access(obj, size, false);
    /* The oldest store this thread may still read (the coherence rules above). */
    int oldest = l->n - 1;
    while (oldest > 0 && !seen_by(&l->stores[oldest], slot))
        --oldest;
    if (oldest == 0 && !seen_by(&l->stores[0], slot) && l->dropped)
        g_truncated = true; /* an even older one may have been allowed */
    int choices = l->n - oldest;
    if (order == MO_SEQ_CST)
        choices = 1;
    int back = choices > 1 ? explore_choose(choices) : 0; /* 0: the newest */
    store *s = &l->stores[l->n - 1 - back];
    store *newest = &l->stores[l->n - 1];
    mark_seen(s, slot);
    bool synced = is_acquire(order) && acquire_from(slot, s);
    if (ev >= 0) {
        g_events[ev].reads_from = s->event;
        g_events[ev].synchronizes = synced;
        g_events[ev].stale = back > 0;
        g_extra[ev].newest = newest->event;
    }
    if (back > 0 && s->event >= 0 && newest->event >= 0)
        snprintf(g_annotation, sizeof g_annotation, "  (stale: reads line %d's store, not line %d's)",
                 g_events[s->event].trace_line, g_events[newest->event].trace_line);
    else if (back > 0 && newest->event >= 0)
        snprintf(g_annotation, sizeof g_annotation, "  (stale: reads the initial value, not line %d's store)",
                 g_events[newest->event].trace_line);
    else if (synced && s->event >= 0)
        snprintf(g_annotation, sizeof g_annotation, "  (syncs with line %d)", g_events[s->event].trace_line);
    model_tick(slot);
    return s->value;
}

void explore_atomic_store(volatile void *obj, size_t size, uintptr_t value, int order, const char *field)
{
    order = effective(order);
    int slot = model_slot();
    location *l = location_of(obj, size);
    new_event(slot, "store", field, order, true, false);
    model_atomic_access(obj, size, true);
    append(l, slot, value, order, false);
    model_tick(slot);
}

/* The read half of every read-modify-write: the newest store. */
static store *rmw_read(location *l, int slot, int order, int ev)
{
    store *s = &l->stores[l->n - 1];
    mark_seen(s, slot);
    bool synced = is_acquire(order) && acquire_from(slot, s);
    if (ev >= 0) {
        g_events[ev].reads_from = s->event;
        g_events[ev].synchronizes = synced;
        g_extra[ev].newest = s->event;
    }
    if (synced && s->event >= 0)
        snprintf(g_annotation, sizeof g_annotation, "  (syncs with line %d)", g_events[s->event].trace_line);
    return s;
}

uintptr_t explore_atomic_rmw(volatile void *obj, size_t size, enum explore_rmw op, uintptr_t arg, int order,
                             const char *field)
{
    static const char *const names[] = {"exchange", "fetch_add", "fetch_sub", "fetch_or", "fetch_and", "fetch_xor"};
    order = effective(order);
    int slot = model_slot();
    location *l = location_of(obj, size);
    int ev = new_event(slot, names[op], field, order, true, true);
    model_atomic_access(obj, size, true);
    uintptr_t old = rmw_read(l, slot, order, ev)->value, v = arg;
    switch (op) {
    case EXPLORE_RMW_XCHG: v = arg; break;
    case EXPLORE_RMW_ADD: v = old + arg; break;
    case EXPLORE_RMW_SUB: v = old - arg; break;
    case EXPLORE_RMW_OR: v = old | arg; break;
    case EXPLORE_RMW_AND: v = old & arg; break;
    case EXPLORE_RMW_XOR: v = old ^ arg; break;
    }
    append(l, slot, v, order, true);
    model_tick(slot);
    return old;
}

bool explore_atomic_cas(volatile void *obj, size_t size, void *expected, uintptr_t desired, int success,
                        int failure, const char *field)
{
    success = effective(success);
    failure = effective(failure);
    int slot = model_slot();
    location *l = location_of(obj, size);
    uintptr_t want = read_mem(expected, size);
    uintptr_t found = l->stores[l->n - 1].value;
    bool ok = found == want;
    int ev = new_event(slot, ok ? "compare_exchange" : "compare_exchange (failed)", field, ok ? success : failure,
                       ok, true);
    model_atomic_access(obj, size, ok);
    rmw_read(l, slot, ok ? success : failure, ev);
    if (ok)
        append(l, slot, desired, success, true);
    else
        write_mem(expected, size, found);
    model_tick(slot);
    return ok;
}

/* ---- why two accesses were not ordered ----------------------------------------- */

static const char *base(const char *file)
{
    const char *slash = file ? strrchr(file, '/') : NULL;
    return slash ? slash + 1 : file ? file : "?";
}

static const char *op_of(const model_event *e, char *buf, size_t size)
{
    /* "exchange m_waiting [acq_rel]" -> "exchange" */
    snprintf(buf, size, "%s", e->text);
    buf[strcspn(buf, " ")] = '\0';
    return buf;
}

void model_explain_missing_edge(int from, uint32_t e, int to, char *buf, size_t size)
{
    char a[32], b[32];
    /* A load of `to` that read a store `from` made after its access. */
    for (int i = g_nevents - 1; i >= 0; --i) {
        const model_event *r = &g_events[i];
        if (r->slot != to || !r->is_load || r->reads_from < 0)
            continue;
        const model_event *w = &g_events[r->reads_from];
        const event_extra *wx = &g_extra[r->reads_from];
        bool in_sequence = wx->rs_epoch[from] >= e && wx->rs_epoch[from];
        bool after = w->slot == from && wx->epoch >= e;
        if (!in_sequence && !after)
            continue;
        if (!is_acquire(g_extra[i].order) && (in_sequence || is_release(wx->order)))
            snprintf(buf, size, "T%d's %s at %s:%d (trace line %d) read what T%d's %s at %s:%d (line %d) stored, "
                     "but it is %s: with acquire it would synchronize with that release",
                     to, op_of(r, a, sizeof a), base(r->file), r->line, r->trace_line, w->slot, op_of(w, b, sizeof b),
                     base(w->file), w->line, w->trace_line, order_text(g_extra[i].order));
        else if (is_acquire(g_extra[i].order))
            snprintf(buf, size, "T%d's %s at %s:%d (trace line %d) read what T%d's %s at %s:%d (line %d) stored, "
                     "but that store is %s: with release, this acquire would synchronize with it",
                     to, op_of(r, a, sizeof a), base(r->file), r->line, r->trace_line, w->slot, op_of(w, b, sizeof b),
                     base(w->file), w->line, w->trace_line, order_text(wx->order));
        else
            snprintf(buf, size, "T%d's %s at %s:%d (trace line %d) read what T%d's %s at %s:%d (line %d) stored, "
                     "but both are relaxed: a release store read by an acquire load would order them",
                     to, op_of(r, a, sizeof a), base(r->file), r->line, r->trace_line, w->slot, op_of(w, b, sizeof b),
                     base(w->file), w->line, w->trace_line);
        return;
    }
    /* A stale load of `to` that did not read a newer store of `from`. */
    for (int i = g_nevents - 1; i >= 0; --i) {
        const model_event *r = &g_events[i];
        int nw = g_extra[i].newest;
        if (r->slot != to || !r->stale || nw < 0 || g_events[nw].slot != from || g_extra[nw].epoch < e)
            continue;
        snprintf(buf, size, "T%d's %s at %s:%d (trace line %d) read an older store, not T%d's %s at %s:%d (line %d): "
                 "C11 allows that (nothing made T%d see it), so nothing orders the two",
                 to, op_of(r, a, sizeof a), base(r->file), r->line, r->trace_line, from,
                 op_of(&g_events[nw], b, sizeof b), base(g_events[nw].file), g_events[nw].line,
                 g_events[nw].trace_line, to);
        return;
    }
    snprintf(buf, size, "No operation of T%d read anything T%d stored after its access, and no mutex or "
             "thread start/join links them", to, from);
}

_Noreturn void explore_fence(const char *ordertext, const char *file, int line)
{
    explore_fail("explorer", "%s:%d: atomic_thread_fence(%s): the explorer's model has no fences (C11 7.17.4 "
                 "would need rules of their own); give the atomic operations the orders instead",
                 base(file), line, ordertext);
}
