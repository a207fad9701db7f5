/*
 * RC11's consistency, checked after the fact over a finished execution
 * (Lahav et al., PLDI 2017, section 3): the axioms an execution must meet,
 * and, when one fails, the shortest cycle that breaks it.
 *
 *     coherence     irreflexive(hb ; eco?)      eco = (rf ∪ mo ∪ fr)+
 *     atomicity     rmw ∩ (fr ; mo) = ∅
 *     sc            acyclic(psc)                (psc.c)
 *     no-thin-air   acyclic(sb ∪ rf)
 *
 * The explorer never runs an execution that breaks one: location.c offers
 * only the reads and places coherence and atomicity allow, psc.c refuses a
 * choice that closes a cycle in psc, and a load reads only a store that has
 * run. So this file is a second opinion, axiomatic where the rest is
 * operational:
 *
 *   - explore_litmus --check asks it about every execution it meets, so
 *     that the two ways of saying RC11 must agree on every litmus file;
 *   - explore_litmus --candidates runs the candidate search (the same
 *     programs, but a load may read any store of its location and a store
 *     take any place: location.c and point.c, options.candidates) and asks
 *     it why each execution with a forbidden final state is forbidden: the
 *     cycle a page draws in red.
 *
 * hb is the explorer's own (an event's vector clock holds what happens
 * before it: clock.c), so that sw, release sequences and fences are
 * computed once, where the model runs them.
 */
#include "model/part.h"

#include <stdio.h>
#include <string.h>

/* A relation to walk, by the name an edge of it is drawn with. */
typedef struct relation {
    const char *name;
    const set *rows;
} relation;

/* The shortest path from one node to another (a cycle when they are the
 * same) over the union of rels, at least one edge; its edges, as event
 * indices and names, into v (replacing what it held). false: none, or one
 * longer than v can hold. */
static bool shortest(const psc_graph *g, const relation *rels, int nrels, int from, int to, explore_verdict *v)
{
    int prev[PSC_NODES], via[PSC_NODES], queue[PSC_NODES + 1], head = 0, tail = 0;
    bool seen[PSC_NODES] = {false};
    queue[tail++] = from; /* not seen: a path may come back to it */
    while (head < tail) {
        int x = queue[head++];
        for (int k = 0; k < nrels; ++k)
            for (int y = 0; y < g->count; ++y) {
                if (!(rels[k].rows[x] >> y & 1) || seen[y])
                    continue;
                seen[y] = true;
                prev[y] = x;
                via[y] = k;
                if (y != to) {
                    queue[tail++] = y;
                    continue;
                }
                int len = 0;
                for (int z = to;; z = prev[z]) {
                    ++len;
                    if (prev[z] == from)
                        break;
                }
                if (len > EXPLORE_CYCLE)
                    return false;
                v->n = len;
                int i = len;
                for (int z = to;; z = prev[z]) {
                    --i;
                    v->from[i] = event_index(g->n[prev[z]].e);
                    v->to[i] = event_index(g->n[z].e);
                    v->label[i] = rels[via[z]].name;
                    if (prev[z] == from)
                        break;
                }
                return true;
            }
    }
    return false;
}

/* "coherence: hb ; fr is a cycle (RC11: irreflexive(hb ; eco?))" */
static void say(explore_verdict *v, const char *axiom, const char *rule)
{
    v->axiom = axiom;
    int n = snprintf(v->says, sizeof v->says, "%s: ", axiom);
    for (int i = 0; i < v->n && n < (int)sizeof v->says; ++i)
        n += snprintf(v->says + n, sizeof v->says - (size_t)n, "%s%s", i ? " ; " : "", v->label[i]);
    if (n < (int)sizeof v->says)
        snprintf(v->says + n, sizeof v->says - (size_t)n, " is a cycle (RC11: %s)", rule);
}

/* Whether the shortest cycle in `best` should give way to v's. */
static bool shorter(const explore_verdict *v, int best) { return best == 0 || v->n < best; }

/* irreflexive(hb ; eco?): hb is irreflexive (a strict order, by its
 * clocks), so a cycle is an hb edge a -> b and an eco path back. The hb
 * edge is named po inside a thread. */
static bool coherence(const psc_graph *g, explore_verdict *v)
{
    int n = g->count, best = 0;
    const relation eco[] = {{"rf", g->rf}, {"mo", g->mo}, {"fr", g->fr}};
    explore_verdict try = {0};
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            if (!(g->hb[a] >> b & 1) || !shortest(g, eco, 3, b, a, &try) || (best && try.n + 1 >= best))
                continue;
            /* the hb edge first, then the eco path back */
            v->n = try.n + 1;
            v->from[0] = event_index(g->n[a].e);
            v->to[0] = event_index(g->n[b].e);
            v->label[0] = g->sb[a] >> b & 1 ? "po" : "hb";
            memcpy(v->from + 1, try.from, sizeof try.from[0] * (size_t)try.n);
            memcpy(v->to + 1, try.to, sizeof try.to[0] * (size_t)try.n);
            memcpy(v->label + 1, try.label, sizeof try.label[0] * (size_t)try.n);
            best = v->n;
        }
    if (best)
        say(v, "coherence", "irreflexive(hb ; eco?)");
    return best == 0;
}

/* rmw ∩ (fr ; mo) = ∅: no store comes between what a read-modify-write
 * read and its own store (7.17.3p12's "the last value"). */
static bool atomicity(const psc_graph *g, explore_verdict *v)
{
    for (int e = 0; e < g->count; ++e) {
        if (!g->n[e].read || !g->n[e].write)
            continue;
        for (int w = 0; w < g->count; ++w)
            if ((g->fr[e] >> w & 1) && (g->mo[w] >> e & 1)) {
                v->n = 2;
                v->from[0] = v->to[1] = event_index(g->n[e].e);
                v->to[0] = v->from[1] = event_index(g->n[w].e);
                v->label[0] = "fr";
                v->label[1] = "mo";
                say(v, "atomicity", "rmw ∩ (fr ; mo) = ∅");
                return false;
            }
    }
    return true;
}

/* The shortest cycle of rels through any node, into v; false: none. */
static bool shortest_cycle(const psc_graph *g, const relation *rels, int nrels, explore_verdict *v)
{
    explore_verdict try = {.disorder = v->disorder};
    int best = 0;
    for (int a = 0; a < g->count; ++a)
        if (shortest(g, rels, nrels, a, a, &try) && shorter(&try, best)) {
            *v = try;
            best = try.n;
        }
    return best > 0;
}

static int node_of(const psc_graph *g, int event)
{
    for (int i = 0; i < g->count; ++i)
        if (event_index(g->n[i].e) == event)
            return i;
    return -1;
}

/* Appends an edge a -> b (nodes) to v; false when v is full. */
static bool append(const psc_graph *g, explore_verdict *v, int a, int b, const char *label)
{
    if (v->n == EXPLORE_CYCLE)
        return false;
    v->from[v->n] = event_index(g->n[a].e);
    v->to[v->n] = event_index(g->n[b].e);
    v->label[v->n++] = label;
    return true;
}

static const char *hb_name(const psc_graph *g, int a, int b) { return g->sb[a] >> b & 1 ? "po" : "hb"; }

/* A psc edge between two seq_cst fences is psc_F's hb ; eco ; hb (or hb
 * alone): drawn through the accesses it passes, so that a reader sees the
 * store a read missed. Appends it to v; false: none found (or v is full). */
static bool through(const psc_graph *g, int a, int b, explore_verdict *v)
{
    const set *eco[] = {g->rf, g->mo, g->fr};
    static const char *const names[] = {"rf", "mo", "fr"};
    for (int c = 0; c < g->count; ++c) {
        if (c != a && !(g->hb[a] >> c & 1))
            continue;
        for (int k = 0; k < 3; ++k)
            for (int d = 0; d < g->count; ++d)
                if ((eco[k][c] >> d & 1) && (d == b || (g->hb[d] >> b & 1)))
                    return (c == a || append(g, v, a, c, hb_name(g, a, c))) && append(g, v, c, d, names[k]) &&
                           (d == b || append(g, v, d, b, hb_name(g, d, b)));
    }
    return g->hb[a] >> b & 1 ? append(g, v, a, b, hb_name(g, a, b)) : false;
}

/* acyclic(psc): each edge named by the simplest relation it is in. */
static bool sc(const psc_graph *g, explore_verdict *v)
{
    set psc[PSC_NODES] = {0}, other[PSC_NODES] = {0}, hb_only[PSC_NODES] = {0};
    psc_relation(g, psc);
    set po[PSC_NODES], rf[PSC_NODES], mo[PSC_NODES], fr[PSC_NODES];
    for (int a = 0; a < g->count; ++a) {
        po[a] = psc[a] & g->sb[a];
        rf[a] = psc[a] & g->rf[a];
        mo[a] = psc[a] & g->mo[a];
        fr[a] = psc[a] & g->fr[a];
        hb_only[a] = psc[a] & g->hb[a];
        other[a] = psc[a];
    }
    const relation rels[] = {{"po", po}, {"rf", rf}, {"mo", mo}, {"fr", fr}, {"hb", hb_only}, {"psc", other}};
    explore_verdict cycle;
    if (!shortest_cycle(g, rels, 6, &cycle))
        return true;
    int kept = v->disorder;
    *v = (explore_verdict){.disorder = kept};
    for (int k = 0; k < cycle.n; ++k) {
        int a = node_of(g, cycle.from[k]), b = node_of(g, cycle.to[k]);
        bool fences = g->n[a].fence && g->n[b].fence;
        if (!(strcmp(cycle.label[k], "psc") == 0 && fences && through(g, a, b, v)) &&
            !append(g, v, a, b, cycle.label[k])) {
            *v = cycle; /* too long to draw through: the fences' edges stay psc */
            v->disorder = kept;
            break;
        }
    }
    say(v, "sc", "acyclic(psc)");
    return false;
}

/* acyclic(sb ∪ rf): never broken here (a load reads a store that has run),
 * checked all the same: it is one of the four. */
static bool no_thin_air(const psc_graph *g, explore_verdict *v)
{
    const relation rels[] = {{"po", g->sb}, {"rf", g->rf}};
    if (!shortest_cycle(g, rels, 2, v))
        return true;
    say(v, "no-thin-air", "acyclic(sb ∪ rf)");
    return false;
}

/* Stores of one location whose modification order goes against
 * happens-before (write-write coherence broken): what a candidate breaks
 * beyond what its outcome needs, unless the outcome is about that. */
static int disorder(const psc_graph *g)
{
    int n = 0;
    for (int a = 0; a < g->count; ++a)
        for (int b = 0; b < g->count; ++b)
            n += (g->hb[a] >> b & 1) && (g->mo[b] >> a & 1);
    return n;
}

bool explore_consistent(explore_verdict *v)
{
    *v = (explore_verdict){0};
    const psc_graph *g = psc_execution();
    v->disorder = disorder(g);
    /* in the paper's order; the first axiom broken is the one named */
    return coherence(g, v) && atomicity(g, v) && sc(g, v) && no_thin_air(g, v);
}
