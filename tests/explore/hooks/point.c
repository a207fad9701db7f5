/*
 * The hook's entry points for atomic operations: where an operation's
 * context (hook.h's explore_atomic_op) meets the scheduler and the model.
 *
 * One atomic operation, in order:
 *
 *   1. its thread's turn (thread.c): a scheduling point;
 *   2. the use-after-free check of its object (alloc.c);
 *   3. its event (event.c), with the order it runs with: the one written,
 *      or the weaker one --weaken gives (weaken.c);
 *   4. the data-race check against plain accesses (datarace.c);
 *   5. which way it goes: for a load, which store it reads; for a store,
 *      where it goes in modification order; for a read-modify-write, both
 *      (location.c says which ways coherence and atomicity allow, psc.c
 *      which keep the seq_cst order acyclic), and when there are several,
 *      the search decides (path.c);
 *   6. the operation under the model (location.c), which fills in the event:
 *      what it read, from which store, stale or not, synchronized or not.
 *
 * The trace and the graph format the event later; nothing here formats.
 */
#include "hooks/part.h"

#include "lockstep/coro.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* This file's part of the schedule's world, through its layer's (hooks/part.h). */
static inline point_state *st(void) { return &hooks_now()->point; }

static enum atomic_op op_of(enum explore_call call)
{
    switch (call) {
    case EXPLORE_LOAD: return OP_LOAD;
    case EXPLORE_STORE: return OP_STORE;
    case EXPLORE_CAS: return OP_CAS;
    default: return OP_RMW;
    }
}

static bool checked(void) { return thread_running() && !datarace_is_quiet(); }

/* A compare-exchange runs with its success order if it succeeds, its
 * failure order if not (7.17.7.4p2), each as --weaken may change it. */
static void cas_orders(event *e, const explore_atomic_op *op, bool ok)
{
    e->ok = ok;
    e->written = ok ? op->order : op->failure;
    e->order = weaken_order(op->site, e->written);
}

/* Which ways the model allows (location.c) that keep the seq_cst order
 * acyclic (psc.c), into allowed[0..n), with the store each reads. */
static void allowed_ways(event *e, const explore_atomic_op *op, int n, bool *allowed, int *reads_from)
{
    for (int c = 0; c < n; ++c) {
        location_choice ch;
        location_choice_of(e, op->size, c, &ch);
        reads_from[c] = ch.reads_from; /* the search may rule out old stores (path.c) */
        allowed[c] = c == 0 || !psc_matters(e) || st()->candidates; /* the default never closes a cycle;
                                                                     * a candidate's cycles are consistency.c's */
        if (!allowed[c]) {
            if (e->op == OP_CAS)
                cas_orders(e, op, ch.ok);
            allowed[c] = psc_allows(e, &ch);
        }
    }
}

/* Which way the operation goes: 0, the default (the newest store, the last
 * place in modification order), unless the model allows others, and then
 * the search's decision. A decision's options are a 32-bit set (path.c):
 * with more ways than that (a load with that many stores to read), the
 * search first decides which of up to 32 equal groups the way lies in,
 * and so on down to 32 or fewer, each an ordinary choice (path_choose),
 * so that no way is ever cut short. */
static int which_way(event *e, const explore_atomic_op *op)
{
    int n = location_choices(e, op->size);
    bool allowed_small[32];
    int reads_small[32];
    bool *allowed = n <= 32 ? allowed_small : malloc((size_t)n * sizeof *allowed);
    int *reads_from = n <= 32 ? reads_small : malloc((size_t)n * sizeof *reads_from);
    if (!allowed || !reads_from) {
        fputs("explore: no memory for an operation's ways\n", stderr);
        exit(2);
    }
    allowed_ways(e, op, n, allowed, reads_from);
    int base = 0, span = n;
    while (span > 32) {
        int per = (span + 31) / 32; /* ways per group */
        unsigned groups = 0;
        for (int c = 0; c < span; ++c)
            if (allowed[base + c])
                groups |= 1u << (c / per);
        int g = path_choose(groups, e->thread);
        if (g < 0)
            explore_fail("explorer", "%s", path_error());
        base += g * per;
        span = per < n - base ? per : n - base;
    }
    unsigned options = 0;
    for (int c = 0; c < span; ++c)
        if (allowed[base + c])
            options |= 1u << c;
    int c = path_read(options, e->thread, reads_from + base);
    if (n > 32) {
        free(allowed);
        free(reads_from);
    }
    if (c < 0)
        explore_fail("explorer", "%s", path_error());
    return base + c;
}

/* A weak compare-exchange may fail spuriously (7.17.7.4p4). Explored when
 * the search's options ask (explore_litmus's do; LOCKSTEP_EXPLORE_SPURIOUS=1
 * for a scenario; the README's "Scope and limits" says why the steps'
 * scenarios do not by default), once per site and thread in a schedule: in
 * a retry loop a second spurious failure only repeats the first (it reads
 * again and retries), and with no limit no search of such a loop would
 * ever be exhaustive. */
void point_set_spurious(bool on) { st()->spurious = on; }

void point_set_candidates(bool on) { st()->candidates = on; }

void point_set_spurious_wakeups(bool on) { st()->spurious_wakeups = on; }
bool point_spurious_wakeups(void) { return st()->spurious_wakeups; }

static bool may_fail_spuriously(const event *e, const explore_atomic_op *op)
{
    if (!op->weak || !st()->spurious)
        return false;
    for (int i = event_index(e) - 1; i >= 0; --i) {
        const event *x = event_at(i);
        if (x->kind == EV_ATOMIC && x->spurious && x->site == e->site && x->thread == e->thread)
            return false;
    }
    return true;
}

/* What the operation touches, for the search's reduction (step.c): its
 * location, and whether it may store or read. The order does not matter
 * there: RC11's psc is a property of the finished graph (step.c). */
static step step_of(const explore_atomic_op *op)
{
    return (step){.kind = STEP_ATOMIC, .obj = op->obj, .writes = op->site->call != EXPLORE_LOAD,
                  .reads = op->site->call != EXPLORE_STORE, .scenario = true};
}

uintptr_t explore_atomic(const explore_atomic_op *op)
{
    int self = thread_self();
    if (self != EXPLORE_MAIN)
        thread_wait_turn(self, step_of(op));
    alloc_check_use(self, op->obj, "does the atomic operation at", op->site, "on");

    event *e = event_new(EV_ATOMIC, self, op->site);
    e->op = op_of(op->site->call);
    e->obj = op->obj;
    e->rmw = op->rmw;
    e->plain = op->plain;
    e->stored = op->value;
    e->written = op->order;
    e->order = weaken_order(op->site, e->written);
    if (e->op == OP_CAS) {
        e->expected = location_mem_read(op->expected, op->size);
        e->weak = may_fail_spuriously(e, op);
        cas_orders(e, op, true); /* for psc_matters: seq_cst if either order is */
        if (op->failure == memory_order_seq_cst)
            cas_orders(e, op, false);
    }
    int way = which_way(e, op);
    if (e->op == OP_CAS) {
        location_choice ch;
        location_choice_of(e, op->size, way, &ch);
        cas_orders(e, op, ch.ok);
    }
    if (checked())
        datarace_atomic(self, e, op->size, e->op != OP_LOAD && (e->op != OP_CAS || e->ok));
    uintptr_t read = location_do(e, op->size, way);
    psc_note(e);
    if (self != EXPLORE_MAIN) { /* what it did, for the search (path.c) */
        step did = step_of(op);
        did.writes = e->stores;
        path_ran(&did);
    }
    if (e->op != OP_CAS)
        return read;
    if (!e->ok)
        location_mem_write(op->expected, op->size, read);
    return e->ok;
}

/* atomic_thread_fence: the turn, the event and its order, as for an atomic
 * operation; the fence itself is fence.c's; a seq_cst fence joins psc. */
void explore_fence(const explore_site *site, int order)
{
    int self = thread_self();
    if (self != EXPLORE_MAIN)
        thread_wait_turn(self, (step){.kind = STEP_FENCE, .scenario = true});
    event *e = event_new(EV_FENCE, self, site);
    e->written = order;
    e->order = weaken_order(site, order);
    e->epoch = clock_now(self);
    if (e->order != e->written)
        snprintf(e->text, sizeof e->text, "%s:%d fence [%s, weakened from %s]", base_name(site->file), site->line,
                 explore_order_name(e->order), explore_order_name(e->written));
    else
        snprintf(e->text, sizeof e->text, "%s:%d fence [%s]", base_name(site->file), site->line,
                 explore_order_name(e->order));
    fence_do(e);
    e->clock = *clock_of(self);
    clock_tick(self);
    psc_note(e);
}

void explore_atomic_init(volatile void *obj, size_t size, uintptr_t value, const explore_site *site)
{
    int self = thread_self();
    event *e = event_silent(EV_INIT, self, site); /* the initial value's "store" */
    e->obj = obj;
    e->stored = value;
    e->stores = true;
    if (checked())
        datarace_init(self, e, size);
    location_init(e, size);
}

/* ---- how deep the step's trampolines nest ------------------------------------ */

void explore_coro_resume(struct lockstep_coro *h)
{
    int *nesting = &st()->nesting[thread_self()];
    if (++*nesting > st()->max_nesting)
        st()->max_nesting = *nesting;
    event *e = event_silent(EV_RESUME, thread_self(), NULL);
    e->obj = h;
    e->depth = *nesting;
    lockstep_coro_resume(h);
    --st()->nesting[thread_self()];
}

void point_reset(void)
{
    st()->max_nesting = 0;
    memset(st()->nesting, 0, sizeof st()->nesting);
}
int explore_resume_nesting(void) { return st()->max_nesting; }
