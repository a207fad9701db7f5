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
 *   5. for a load, which store it reads: location.c says how many it may,
 *      and when there are several, the search decides (path.c);
 *   6. the operation under the model (location.c), which fills in the event:
 *      what it read, from which store, stale or not, synchronized or not.
 *
 * The trace and the graph format the event later; nothing here formats.
 */
#include "model.h"

#include "lockstep/coro.h"

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

/* Which store a load reads: 0, the newest, unless the model allows older
 * ones, and then the search's decision. */
static int which_store(const event *e, size_t size)
{
    int n = location_read_choices(e->obj, size, e->thread, e->order);
    if (n < 2)
        return 0;
    if (n > 32)
        n = 32;
    int back = path_branch(BRANCH_READ, n == 32 ? ~0u : (1u << n) - 1, e->thread);
    if (back < 0)
        explore_fail("explorer", "%s", path_error());
    return back;
}

uintptr_t explore_atomic(const explore_atomic_op *op)
{
    int self = thread_self();
    if (self != EXPLORE_MAIN)
        thread_wait_turn(self);
    alloc_check_use(self, op->obj, "does the atomic operation at", op->site, "on");

    event *e = event_new(EV_ATOMIC, self, op->site);
    e->op = op_of(op->site->call);
    e->obj = op->obj;
    e->rmw = op->rmw;
    e->stored = op->value;
    e->written = op->order;
    if (e->op == OP_CAS) {
        e->expected = location_mem_read(op->expected, op->size);
        e->ok = location_newest(op->obj, op->size) == e->expected;
        if (!e->ok)
            e->written = op->failure;
    }
    e->order = weaken_order(op->site, e->written);

    if (checked())
        datarace_atomic(self, e, op->size, e->op != OP_LOAD && (e->op != OP_CAS || e->ok));
    int back = e->op == OP_LOAD ? which_store(e, op->size) : 0;
    uintptr_t read = location_do(e, op->size, back);
    if (e->op != OP_CAS)
        return read;
    if (!e->ok)
        location_mem_write(op->expected, op->size, read);
    return e->ok;
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

void explore_fence(const explore_site *site, int order)
{
    (void)order;
    explore_fail("explorer", "%s:%d: atomic_thread_fence(%s): the explorer's model has no fences yet (C11 7.17.4 "
                 "needs rules of their own); give the atomic operations the orders instead",
                 base_name(site->file), site->line, site->order);
}

/* ---- how deep the step's trampolines nest ------------------------------------ */

static _Thread_local int t_nesting;
static int g_max_nesting;

void explore_coro_resume(struct lockstep_coro *h)
{
    if (++t_nesting > g_max_nesting)
        g_max_nesting = t_nesting;
    event *e = event_silent(EV_RESUME, thread_self(), NULL);
    e->obj = h;
    e->depth = t_nesting;
    lockstep_coro_resume(h);
    --t_nesting;
}

void point_reset(void) { g_max_nesting = 0; }
int explore_resume_nesting(void) { return g_max_nesting; }
