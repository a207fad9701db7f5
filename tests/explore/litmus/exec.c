/*
 * The interpreter of a litmus thread's statements.
 *
 * This file is compiled with hook.h force-included (CMakeLists.txt), as
 * the explorer compiles a step's sources. So each atomic operation below
 * is one of the explorer's scheduling points, run under its C11 model with
 * the order the litmus file wrote (a runtime value here). A plain access
 * (*x) is one too: it runs as the model's relaxed access to the same
 * location, and reaches the race check as a plain access (plain_read,
 * plain_write, which call ThreadSanitizer's entry points by hand). The
 * file is not instrumented, as a step's sources are: its own memory (the
 * frames, the registers, the parsed test) is the interpreter's, not the
 * litmus program's, and no race of the program's can be in it.
 *
 * One statement at a time, recursively. An atomic operation, a fence, a
 * lock goes to the explorer with its own site (site.c), so that its trace
 * line names the litmus file's line and location (`MP.litmus:17 load y`);
 * a plain access's line says it is one (`MP.litmus:9 plain write x <- 1
 * (not atomic)`): one event, one line, one box in a graph.
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

/* What one thread works with: the test, the memory, its registers. */
typedef struct frame {
    const litmus_test *t;
    litmus_memory *m;
    int thread;
    int *regs;
} frame;

/* The location an access works on: its own, or the one whose address its
 * register holds as it runs (herd's address dependency: int *r2 =
 * atomic_load_explicit(x1, ...); atomic_load_explicit(r2, ...)). A register
 * holding no int location's address has nothing to access: the schedule
 * fails, and says so. */
static int target(const frame *f, int loc, int via, int line)
{
    if (!via)
        return loc;
    int v = f->regs[via - 1];
    int at = litmus_address_of(v, f->t->nlocs);
    if (at < 0 || f->t->locs[at].kind == LOC_MUTEX)
        explore_fail("litmus", "%s:%d: P%d accesses *%s, and %s holds %d, no int location's address",
                     base(f->t->path), line, f->thread, f->t->threads[f->thread].regs[via - 1],
                     f->t->threads[f->thread].regs[via - 1], v);
    return at;
}

/* ---- the memory operations ---------------------------------------------------------- */

/* Each goes to the explorer as hook.h's macros would send it, but with the
 * operation's own site (site.c): the litmus file's line and names, and the
 * order as a value. Its trace line then says what it did. */
static int atomic_op(const frame *f, const explore_site *site, int loc, int order, uintptr_t value)
{
    explore_atomic_op op = {.site = site, .obj = f->m->cell[loc], .size = sizeof(int), .order = order,
                            .value = value};
    return (int)explore_atomic(&op);
}

/* A plain access's load or store: relaxed, and marked plain, so that no
 * fence orders it (RC11's sw goes through atomic accesses only). */
static int plain_op(const frame *f, const explore_site *site, int loc, uintptr_t value)
{
    explore_atomic_op op = {.site = site, .obj = f->m->cell[loc], .size = sizeof(int), .order = memory_order_relaxed,
                            .value = value, .plain = true};
    return (int)explore_atomic(&op);
}

/* A plain (non-atomic) access, herd's NA, to any location, even one that
 * other accesses use atomically. Its value: RC11 puts no axiom on a
 * non-atomic read but coherence (rc11.cat: hb;eco? irreflexive), so it
 * may read any store a relaxed load may; in a race-free execution that is
 * the newest store that happens before it, and a racy one may read an
 * older store, or place a write before one that ran earlier, as herd's
 * states show. So it tells the race check that it is plain, as the
 * instrumentation would (explore_plain, with its litmus line, which a race
 * report names: two conflicting accesses, one of them not atomic, C11
 * 5.1.2.4p25; herd flags it), then runs as the model's relaxed
 * load or store, one that no fence orders: it neither hands what it read
 * to an acquire fence nor carries a release fence's (RC11's sw). */
static int plain_read(const frame *f, const explore_site *site, int loc)
{
    int v = plain_op(f, site, loc, 0);
    explore_plain(f->m->cell[loc], sizeof(int), false, site); /* after its trace line, which a report cites */
    return v;
}

static void plain_write(const frame *f, const explore_site *site, int loc, int v)
{
    plain_op(f, site, loc, (uintptr_t)v);
    explore_plain(f->m->cell[loc], sizeof(int), true, site);
}

static int load(const frame *f, const expr *e)
{
    return atomic_op(f, &e->site, target(f, e->loc, e->via, e->line), e->order, 0);
}

static int read_modify_write(const frame *f, const expr *e, int arg)
{
    static const enum explore_rmw kinds[] = {
        [RMW_XCHG] = EXPLORE_RMW_XCHG, [RMW_ADD] = EXPLORE_RMW_ADD, [RMW_SUB] = EXPLORE_RMW_SUB,
        [RMW_OR] = EXPLORE_RMW_OR,     [RMW_AND] = EXPLORE_RMW_AND, [RMW_XOR] = EXPLORE_RMW_XOR,
    };
    int loc = target(f, e->loc, e->via, e->line);
    explore_atomic_op op = {.site = &e->site, .obj = f->m->cell[loc], .size = sizeof(int), .order = e->order,
                            .rmw = kinds[e->rmw], .value = (uintptr_t)arg};
    return (int)explore_atomic(&op);
}

/* herd's compare-exchange (its CSem): the expected value is a location,
 * read plainly first and, if the exchange fails, written back plainly
 * with what it found, like C's *expected; any location, shared or not,
 * atomic elsewhere or not. The exchange itself gets a copy. A weak one may
 * fail spuriously (7.17.7.4p4), as herd7 lets it: main.c asks the explorer
 * to explore that (LOCKSTEP_EXPLORE_SPURIOUS=1). */
static int compare_exchange(const frame *f, const expr *e, int desired)
{
    int loc = target(f, e->loc, e->via, e->line);
    int expected = plain_read(f, &e->expected_read, e->expected_loc);
    explore_atomic_op op = {.site = &e->site, .obj = f->m->cell[loc], .size = sizeof(int), .order = e->order,
                            .failure = e->failure, .value = (uintptr_t)desired, .expected = &expected,
                            .weak = e->weak};
    int ok = (int)explore_atomic(&op);
    if (!ok)
        plain_write(f, &e->expected_write, e->expected_loc, expected);
    return ok;
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
    case EXPR_READ: return plain_read(f, &e->site, target(f, e->loc, e->via, e->line));
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
        case STMT_WRITE:
            plain_write(f, &s->site, target(f, s->loc, s->via, s->line), eval(f, s->value));
            break;
        case STMT_STORE: {
            atomic_op(f, &s->site, target(f, s->loc, s->via, s->line), s->order, (uintptr_t)eval(f, s->value));
            break;
        }
        case STMT_FENCE:
            /* Only reached once the model has fences (main.c refuses the test before). */
            explore_fence(&s->site, s->order);
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
            explore_mutex_lock(&f->m->mutex[s->loc], &s->site);
            break;
        case STMT_UNLOCK:
            explore_mutex_unlock(&f->m->mutex[s->loc], &s->site);
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
 * location's history (it is a plain write, C11 7.17.2.2, as herd's initial
 * writes are); the registers start at 0, as in herd. */
void litmus_memory_setup(const litmus_test *t, litmus_memory *m)
{
    for (int i = 0; i < t->nlocs; ++i) {
        const litmus_location *l = &t->locs[i];
        if (l->kind == LOC_MUTEX) {
            pthread_mutex_init(&m->mutex[i], NULL);
            continue;
        }
        m->cell[i] = lockstep_alloc(sizeof *m->cell[i]);
        explore_name(m->cell[i], l->name);
        explore_atomic_init(m->cell[i], sizeof(int), (uintptr_t)l->init, &l->init_site);
    }
    for (int th = 0; th < t->nthreads; ++th)
        for (int r = 0; r < LITMUS_MAX_REGISTERS; ++r)
            m->regs[th][r] = 0;
}

/* After the join: every store happens before the main thread, so a load
 * reads the last store in modification order (coherence), the final value.
 * With the location's own site (site.c), as a thread's load has, so that
 * its trace line reads `main: 2+2W+rlx.litmus:21 load x -> 2`, the condition's
 * line, not this file's. */
int litmus_final_value(const litmus_test *t, litmus_memory *m, observed what)
{
    if (what.thread >= 0)
        return m->regs[what.thread][what.index];
    explore_atomic_op op = {.site = &t->locs[what.index].final_site, .obj = m->cell[what.index], .size = sizeof(int),
                            .order = memory_order_relaxed};
    return (int)explore_atomic(&op);
}

void litmus_memory_free(const litmus_test *t, litmus_memory *m)
{
    for (int i = 0; i < t->nlocs; ++i)
        if (t->locs[i].kind != LOC_MUTEX)
            explore_free_at(m->cell[i], NULL); /* no site: the trace says "free x", not exec.c's line */
}
