/*
 * Each memory operation of a litmus test, as the explorer names it.
 *
 * A step's source reaches the explorer through hook.h, whose macros build
 * each operation's context (explore_site: the call, file, line, object and
 * order as written) from __FILE__ and the call's text. A litmus test's
 * operations are the interpreter's (exec.c), so hook.h would name them all
 * `exec.c:53 load location`. Instead each operation of the parsed tree
 * carries a site of its own, built here once, before anything runs, from
 * the litmus file's line and names; exec.c passes it to the explorer with
 * the operation (explore_atomic, explore_fence, explore_mutex_lock), so
 * that its trace line and graph node read `MP.litmus:17 load y`.
 */
#include "litmus.h"

static void expr_sites(const litmus_test *t, expr *e)
{
    static const char *const rmw_names[] = {"exchange", "fetch_add", "fetch_sub", "fetch_or", "fetch_and",
                                            "fetch_xor"};
    if (!e)
        return;
    expr_sites(t, e->a);
    expr_sites(t, e->b);
    const char *object = e->via ? e->via_name : t->locs[e->loc].name; /* "*r2": the register's location */
    const char *order = explore_order_name(e->order);
    switch (e->kind) {
    case EXPR_LOAD:
        e->site = (explore_site){EXPLORE_LOAD, "load", t->path, e->line, object, order, NULL};
        break;
    case EXPR_RMW:
        e->site = (explore_site){e->rmw == RMW_XCHG ? EXPLORE_EXCHANGE : EXPLORE_FETCH, rmw_names[e->rmw], t->path,
                                 e->line, object, order, NULL};
        break;
    case EXPR_CAS:
        e->site = (explore_site){EXPLORE_CAS, "compare_exchange", t->path, e->line, object, order, NULL};
        e->expected_read = (explore_site){EXPLORE_LOAD, "read", t->path, e->line, t->locs[e->expected_loc].name,
                                          NULL, NULL};
        e->expected_write = (explore_site){EXPLORE_STORE, "write", t->path, e->line,
                                           t->locs[e->expected_loc].name, NULL, NULL};
        break;
    case EXPR_READ: /* a plain read: no order (exec.c runs it as a relaxed load) */
        e->site = (explore_site){EXPLORE_LOAD, "read", t->path, e->line, object, NULL, NULL};
        break;
    default:
        break;
    }
}

static void stmt_sites(const litmus_test *t, stmt *s)
{
    for (; s; s = s->next) {
        expr_sites(t, s->value);
        stmt_sites(t, s->body);
        stmt_sites(t, s->otherwise);
        switch (s->kind) {
        case STMT_STORE:
            s->site = (explore_site){EXPLORE_STORE, "store", t->path, s->line,
                                     s->via ? s->via_name : t->locs[s->loc].name, explore_order_name(s->order), NULL};
            break;
        case STMT_WRITE: /* a plain write: no order (exec.c runs it as a relaxed store) */
            s->site = (explore_site){EXPLORE_STORE, "write", t->path, s->line,
                                     s->via ? s->via_name : t->locs[s->loc].name, NULL, NULL};
            break;
        case STMT_FENCE:
            s->site = (explore_site){EXPLORE_FENCE, "fence", t->path, s->line, "", explore_order_name(s->order), NULL};
            break;
        case STMT_LOCK:
        case STMT_UNLOCK:
            s->site = (explore_site){EXPLORE_MUTEX, s->kind == STMT_LOCK ? "lock" : "unlock", t->path, s->line,
                                     t->locs[s->loc].name, NULL, NULL};
            break;
        default:
            break;
        }
    }
}

void litmus_sites(litmus_test *t)
{
    for (int i = 0; i < t->nlocs; ++i) {
        /* the initial value: atomic_init, at the init block's line */
        t->locs[i].init_site = (explore_site){EXPLORE_STORE, "init", t->path, t->locs[i].init_line, t->locs[i].name,
                                              NULL, NULL};
        /* the final value: main's load after the join, at the line of the
         * condition that names it (exec.c, litmus_final_value) */
        t->locs[i].final_site = (explore_site){EXPLORE_LOAD, "load", t->path, t->locs[i].final_line,
                                               t->locs[i].name, explore_order_name(memory_order_relaxed), NULL};
    }
    for (int i = 0; i < t->nthreads; ++i)
        stmt_sites(t, t->threads[i].body);
}
