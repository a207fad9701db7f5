/*
 * The seq_cst order: RC11's psc (Lahav et al., PLDI 2017, section 3), which
 * repairs C11's total order S (7.17.3p6; the paper shows the standard's
 * rules both too weak and unimplementable on Power where seq_cst mixes
 * with weaker orders).
 *
 * RC11 asks that one relation over the execution be acyclic:
 *
 *     scb    = sb ∪ sb|≠loc; hb; sb|≠loc ∪ hb|loc ∪ mo ∪ fr
 *     psc_b  = ([E_sc] ∪ [F_sc]; hb?); scb; ([E_sc] ∪ hb?; [F_sc])
 *     psc_F  = [F_sc]; (hb ∪ hb; eco; hb); [F_sc]
 *     psc    = psc_b ∪ psc_F                       acyclic(psc)
 *
 * with E_sc the seq_cst accesses and fences, F_sc the seq_cst fences, fr =
 * rf⁻¹; mo (a load before the stores after the one it read), eco = (rf ∪
 * mo ∪ fr)+. A seq_cst load may read any store a load may (location.c); a
 * choice that would close a cycle in psc is never offered (point.c asks
 * psc_allows), so the explorer never runs an execution RC11 forbids, and
 * never reports one.
 *
 * Checking only the choices is enough. An operation is the last event of
 * its thread, so nothing happens after it yet: the only edges that can
 * leave it are mo (its store placed before another) and fr (it read an
 * older store than the newest), and a cycle through it needs one. The
 * default choice (read the newest store, go last) adds neither, so it is
 * always allowed, and every edge psc gains passes through the new event:
 * an execution whose choices were all checked stays acyclic.
 *
 * The relations are bit sets over the execution's atomic events (at most
 * 64): the scenarios of the steps use no seq_cst, so they never get here
 * (psc_matters), and a litmus test has a few dozen events.
 */
#include "model/part.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

static bool is_sc(const event *e) { return e->order == memory_order_seq_cst; }

/* This file's part of the schedule's world, through its layer's (model/part.h). */
static inline psc_state *st(void) { return &model_now()->psc; }

void psc_reset(void) { st()->seen_sc = false; }

void psc_note(const event *e) { st()->seen_sc |= is_sc(e); }

bool psc_matters(const event *e) { return st()->seen_sc || is_sc(e); }

static void compose(const set *a, const set *b, set *out, int n) /* out = a; b */
{
    for (int i = 0; i < n; ++i) {
        set r = 0;
        for (int j = 0; j < n; ++j)
            if (a[i] >> j & 1)
                r |= b[j];
        out[i] = r;
    }
}

static int node_of(const psc_graph *g, int event)
{
    for (int i = 0; i < g->count; ++i)
        if (event_index(g->n[i].e) == event)
            return i;
    return -1;
}

static void add_node(psc_graph *g, const event *e, int rf_event, const vclock *clock)
{
    psc_node *x = &g->n[g->count++];
    *x = (psc_node){.e = e, .fence = e->kind == EV_FENCE, .sc = is_sc(e), .rf_event = rf_event, .epoch = e->epoch,
                    .clock = *clock};
    x->read = !x->fence && e->op != OP_STORE;
    x->write = !x->fence && (e->op == OP_STORE || e->op == OP_RMW || (e->op == OP_CAS && e->ok));
}

/* The modification order of e's location with e put where c puts it. */
static void mo_of(psc_graph *g, const psc_node *x, const location_choice *c, const event *e)
{
    int mo[PSC_NODES + 1]; /* the nodes, and the initial value: every store a node can be */
    int n = location_mo(x->e->obj, mo, PSC_NODES + 1), m = 0, order[PSC_NODES + 2];
    for (int i = 0; i < n; ++i) {
        if (c && mo[i] == c->before)
            order[m++] = event_index(e);
        order[m++] = mo[i];
    }
    if (c && c->before < 0)
        order[m++] = event_index(e);
    /* mo between the nodes; fr from each read to the stores after the one it read */
    for (int i = 0; i < m; ++i) {
        int a = order[i] >= 0 ? node_of(g, order[i]) : -1;
        for (int j = i + 1; j < m; ++j) {
            int b = order[j] >= 0 ? node_of(g, order[j]) : -1;
            if (a >= 0 && b >= 0)
                g->mo[a] |= (set)1 << b;
            for (int r = 0; b >= 0 && r < g->count; ++r)
                if (g->n[r].read && g->n[r].e->obj == x->e->obj && g->n[r].rf_event == order[i] && r != b)
                    g->fr[r] |= (set)1 << b;
        }
    }
}

static bool acyclic(const set *rel, int n)
{
    set t[PSC_NODES];
    memcpy(t, rel, (size_t)n * sizeof t[0]);
    for (int k = 0; k < n; ++k) /* Warshall */
        for (int i = 0; i < n; ++i)
            if (t[i] >> k & 1)
                t[i] |= t[k];
    for (int i = 0; i < n; ++i)
        if (t[i] >> i & 1)
            return false;
    return true;
}

/* Builds g: the atomic events and fences before event `last`, and, when e
 * is not NULL, e going way c (a choice psc_allows weighs); with
 * threads_only, not the main thread's (the harness's setup and checks). */
static void build(psc_graph *g, int last, bool threads_only, const event *e, const location_choice *c)
{
    g->count = 0;
    for (int i = 0; i < last; ++i) {
        const event *x = event_at(i);
        if ((x->kind != EV_ATOMIC && x->kind != EV_FENCE) || (threads_only && x->thread == EXPLORE_MAIN))
            continue;
        if (g->count == PSC_NODES - 1)
            explore_fail("explorer", "more than %d atomic operations with seq_cst among them: too many for psc.c",
                         PSC_NODES);
        add_node(g, x, x->reads_from, &x->clock);
    }
    if (e) {
        add_node(g, e, c->reads_from, &c->clock);
        g->n[g->count - 1].write = e->op == OP_STORE || e->op == OP_RMW || (e->op == OP_CAS && c->ok);
        g->n[g->count - 1].epoch = clock_now(e->thread);
    }
    int n = g->count;
    for (int a = 0; a < n; ++a) {
        g->sb[a] = g->hb[a] = g->mo[a] = g->rf[a] = g->fr[a] = g->loc[a] = 0;
    }
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            const psc_node *x = &g->n[a], *y = &g->n[b];
            if (a == b)
                continue;
            bool same_thread = x->e->thread == y->e->thread;
            if (same_thread && a < b)
                g->sb[a] |= (set)1 << b;
            if ((same_thread && a < b) || (!same_thread && y->clock.c[x->e->thread] >= x->epoch))
                g->hb[a] |= (set)1 << b;
            if (!x->fence && !y->fence && x->e->obj == y->e->obj)
                g->loc[a] |= (set)1 << b;
            if (x->write && y->read && y->rf_event == event_index(x->e))
                g->rf[a] |= (set)1 << b;
        }
    bool seen[PSC_NODES] = {false};
    for (int a = 0; a < n; ++a)
        if (!g->n[a].fence && !seen[a]) {
            for (int b = a; b < n; ++b)
                if (!g->n[b].fence && g->n[b].e->obj == g->n[a].e->obj)
                    seen[b] = true;
            bool pending = e && g->n[n - 1].write && g->n[n - 1].e->obj == g->n[a].e->obj;
            mo_of(g, &g->n[a], pending ? c : NULL, e);
        }
}

void psc_relation(const psc_graph *g, set *psc)
{
    int n = g->count;
    /* scb = sb ∪ sb|≠loc; hb; sb|≠loc ∪ hb|loc ∪ mo ∪ fr */
    set sbnl[PSC_NODES] = {0}, t1[PSC_NODES] = {0}, t2[PSC_NODES] = {0}, scb[PSC_NODES] = {0};
    for (int a = 0; a < n; ++a)
        sbnl[a] = g->sb[a] & ~g->loc[a];
    compose(sbnl, g->hb, t1, n);
    compose(t1, sbnl, t2, n);
    for (int a = 0; a < n; ++a)
        scb[a] = g->sb[a] | t2[a] | (g->hb[a] & g->loc[a]) | g->mo[a] | g->fr[a];
    /* the ends: [E_sc] ∪ [F_sc]; hb? on the left, [E_sc] ∪ hb?; [F_sc] on the right */
    set sc = 0, fsc = 0;
    for (int a = 0; a < n; ++a) {
        sc |= (set)g->n[a].sc << a;
        fsc |= (set)(g->n[a].sc && g->n[a].fence) << a;
    }
    set left[PSC_NODES] = {0}, right[PSC_NODES] = {0};
    for (int a = 0; a < n; ++a) {
        left[a] = (sc >> a & 1) ? (set)1 << a : 0;
        if (fsc >> a & 1)
            left[a] |= g->hb[a];
        right[a] = ((sc >> a & 1) ? (set)1 << a : 0) | (g->hb[a] & fsc);
    }
    compose(left, scb, t1, n);
    compose(t1, right, psc, n);
    /* psc_F = [F_sc]; (hb ∪ hb; eco; hb); [F_sc], eco = rf ∪ (mo ∪ fr); rf? on one location */
    set eco[PSC_NODES] = {0}, mofr[PSC_NODES] = {0};
    for (int a = 0; a < n; ++a)
        mofr[a] = g->mo[a] | g->fr[a];
    compose(mofr, g->rf, t1, n);
    for (int a = 0; a < n; ++a)
        eco[a] = g->rf[a] | mofr[a] | t1[a];
    compose(g->hb, eco, t1, n);
    compose(t1, g->hb, t2, n);
    for (int a = 0; a < n; ++a)
        if (fsc >> a & 1)
            psc[a] |= (g->hb[a] | t2[a]) & fsc;
}

bool psc_allows(const event *e, const location_choice *c)
{
    psc_graph *g = &st()->g;
    build(g, event_index(e), false, e, c);
    set psc[PSC_NODES] = {0};
    psc_relation(g, psc);
    return acyclic(psc, g->count);
}

const psc_graph *psc_execution(void)
{
    build(&st()->g, event_count(), true, NULL, NULL);
    return &st()->g;
}
