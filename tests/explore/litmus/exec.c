/*
 * The interpreter of a litmus thread's statements.
 *
 * This file is compiled the way the explorer compiles a step's sources
 * (CMakeLists.txt): hook.h force-included and ThreadSanitizer's
 * instrumentation on. So each atomic_*_explicit call below is one of the
 * explorer's scheduling points, run under its C11 model with the order the
 * litmus file wrote (a runtime value here), and each read or write of a
 * plain location (memory->plain) reaches its race check: a litmus test runs
 * exactly as a step's code would.
 *
 * One statement at a time, recursively; after each memory operation a note in
 * the thread's column of the explorer's trace says what the litmus line did,
 * in the file's own names ("x = 1 [release]"), for --trace.
 */
#include "litmus.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "explore.h"
#include "lockstep/alloc.h"

static const char *base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

const char *litmus_order_name(int order)
{
    static const char *const names[] = {"relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"};
    return order >= 0 && order <= ORDER_SEQ_CST ? names[order] : "?";
}

/* What one thread works with: the test, the memory, its registers. */
typedef struct frame {
    const litmus_test *t;
    litmus_memory *m;
    int thread;
    int *regs;
} frame;

static const char *loc_name(const frame *f, int loc) { return f->t->locs[loc].name; }

/* ---- the memory operations ---------------------------------------------------------- */

static int load(const frame *f, const expr *e)
{
    atomic_int *location = f->m->atomic[e->loc];
    memory_order order = (memory_order)e->order;
    int v = atomic_load_explicit(location, order);
    explore_note("%s:%d load %s -> %d [%s]", base(f->t->path), e->line, loc_name(f, e->loc), v,
                 litmus_order_name(e->order));
    return v;
}

static int read_modify_write(const frame *f, const expr *e, int arg)
{
    static const char *const names[] = {"exchange", "fetch_add", "fetch_sub", "fetch_or", "fetch_and", "fetch_xor"};
    atomic_int *location = f->m->atomic[e->loc];
    memory_order order = (memory_order)e->order;
    int old = 0;
    switch (e->rmw) {
    case RMW_XCHG: old = atomic_exchange_explicit(location, arg, order); break;
    case RMW_ADD: old = atomic_fetch_add_explicit(location, arg, order); break;
    case RMW_SUB: old = atomic_fetch_sub_explicit(location, arg, order); break;
    case RMW_OR: old = atomic_fetch_or_explicit(location, arg, order); break;
    case RMW_AND: old = atomic_fetch_and_explicit(location, arg, order); break;
    case RMW_XOR: old = atomic_fetch_xor_explicit(location, arg, order); break;
    }
    explore_note("%s:%d %s %s, %d -> %d [%s]", base(f->t->path), e->line, names[e->rmw], loc_name(f, e->loc), arg,
                 old, litmus_order_name(e->order));
    return old;
}

/* herd's compare-exchange: the expected value is a plain location, read
 * and (on failure) written back like C's *expected. */
static int compare_exchange(const frame *f, const expr *e, int desired)
{
    atomic_int *location = f->m->atomic[e->loc];
    int *expected = f->m->plain[e->expected_loc];
    memory_order success = (memory_order)e->order, failure = (memory_order)e->failure;
    int want = *expected;
    bool done = e->weak ? atomic_compare_exchange_weak_explicit(location, expected, desired, success, failure)
                        : atomic_compare_exchange_strong_explicit(location, expected, desired, success, failure);
    explore_note("%s:%d compare_exchange %s: %d -> %d %s [%s]", base(f->t->path), e->line, loc_name(f, e->loc), want,
                 desired, done ? "done" : "failed", litmus_order_name(done ? e->order : e->failure));
    return done;
}

static int plain_read(const frame *f, const expr *e)
{
    int v = *f->m->plain[e->loc];
    explore_note("%s:%d read %s -> %d", base(f->t->path), e->line, loc_name(f, e->loc), v);
    return v;
}

/* ---- expressions ------------------------------------------------------------------------- */

static int binary(const char *op, int a, int b)
{
    if (!strcmp(op, "+")) return (int)((unsigned)a + (unsigned)b); /* wraps, as herd's machine integers */
    if (!strcmp(op, "-")) return (int)((unsigned)a - (unsigned)b);
    if (!strcmp(op, "*")) return (int)((unsigned)a * (unsigned)b);
    if (!strcmp(op, "/")) return b ? a / b : 0;
    if (!strcmp(op, "&")) return a & b;
    if (!strcmp(op, "|")) return a | b;
    if (!strcmp(op, "^")) return a ^ b;
    if (!strcmp(op, "==")) return a == b;
    if (!strcmp(op, "!=")) return a != b;
    if (!strcmp(op, "<")) return a < b;
    if (!strcmp(op, "<=")) return a <= b;
    if (!strcmp(op, ">")) return a > b;
    return a >= b; /* ">=": the parser knows no other */
}

static int eval(const frame *f, const expr *e)
{
    switch (e->kind) {
    case EXPR_CONST: return e->value;
    case EXPR_REG: return f->regs[e->reg];
    case EXPR_BINARY: {
        int a = eval(f, e->a); /* left to right, as herd sequences them */
        return binary(e->op, a, eval(f, e->b));
    }
    case EXPR_READ: return plain_read(f, e);
    case EXPR_LOAD: return load(f, e);
    case EXPR_RMW: return read_modify_write(f, e, eval(f, e->a));
    case EXPR_CAS: return compare_exchange(f, e, eval(f, e->a));
    }
    return 0;
}

/* ---- statements ---------------------------------------------------------------------------- */

static void run(const frame *f, const stmt *s)
{
    for (; s; s = s->next) {
        switch (s->kind) {
        case STMT_SET: {
            int v = eval(f, s->value);
            if (s->reg >= 0)
                f->regs[s->reg] = v;
            break;
        }
        case STMT_WRITE: {
            int v = eval(f, s->value);
            *f->m->plain[s->loc] = v;
            explore_note("%s:%d write %s <- %d", base(f->t->path), s->line, loc_name(f, s->loc), v);
            break;
        }
        case STMT_STORE: {
            int v = eval(f, s->value);
            atomic_int *location = f->m->atomic[s->loc];
            memory_order order = (memory_order)s->order;
            atomic_store_explicit(location, v, order);
            explore_note("%s:%d store %s <- %d [%s]", base(f->t->path), s->line, loc_name(f, s->loc), v,
                         litmus_order_name(s->order));
            break;
        }
        case STMT_FENCE:
            /* Only reached once the model has fences (main.c refuses the test before). */
            atomic_thread_fence((memory_order)s->order);
            explore_note("%s:%d fence [%s]", base(f->t->path), s->line, litmus_order_name(s->order));
            break;
        case STMT_IF:
            if (eval(f, s->value))
                run(f, s->body);
            else
                run(f, s->otherwise);
            break;
        case STMT_BLOCK:
            run(f, s->body);
            break;
        case STMT_LOCK:
            pthread_mutex_lock(&f->m->mutex[s->loc]);
            break;
        case STMT_UNLOCK:
            pthread_mutex_unlock(&f->m->mutex[s->loc]);
            break;
        }
    }
}

void litmus_run_thread(const litmus_test *t, litmus_memory *m, int thread)
{
    frame f = {t, m, thread, m->regs[thread]};
    run(&f, t->threads[thread].body);
}

/* The initial state, before the threads start: atomic_init starts each
 * atomic location's history (it is a plain write, C11 7.17.2.2); the
 * registers start at 0, as in herd. */
void litmus_memory_setup(const litmus_test *t, litmus_memory *m)
{
    for (int i = 0; i < t->nlocs; ++i) {
        const litmus_location *l = &t->locs[i];
        switch (l->kind) {
        case LOC_ATOMIC:
            m->atomic[i] = lockstep_alloc(sizeof *m->atomic[i]);
            explore_name(m->atomic[i], l->name);
            atomic_init(m->atomic[i], l->init);
            break;
        case LOC_PLAIN:
            m->plain[i] = lockstep_alloc(sizeof *m->plain[i]);
            explore_name(m->plain[i], l->name);
            *m->plain[i] = l->init;
            break;
        case LOC_MUTEX:
            pthread_mutex_init(&m->mutex[i], NULL);
            break;
        }
    }
    for (int th = 0; th < t->nthreads; ++th)
        for (int r = 0; r < LITMUS_MAX_REGISTERS; ++r)
            m->regs[th][r] = 0;
}

/* After the join: every store happens before the main thread, so a load
 * reads the last store in modification order (coherence), the final value. */
int litmus_final_value(const litmus_test *t, litmus_memory *m, observed what)
{
    if (what.thread >= 0)
        return m->regs[what.thread][what.index];
    if (t->locs[what.index].kind == LOC_ATOMIC)
        return atomic_load_explicit(m->atomic[what.index], memory_order_relaxed);
    return *m->plain[what.index];
}

void litmus_memory_free(const litmus_test *t, litmus_memory *m)
{
    for (int i = 0; i < t->nlocs; ++i) {
        if (t->locs[i].kind == LOC_ATOMIC)
            lockstep_free(m->atomic[i]);
        else if (t->locs[i].kind == LOC_PLAIN)
            lockstep_free(m->plain[i]);
    }
}
