/* psc.c's part of a schedule's world (run/world.h): its types, declared
 * here so that model/part.h can hold the part by value. psc.c builds the graph;
 * consistency.c reads it too (RC11's other axioms, over a finished
 * execution). */
#ifndef LOCKSTEP_EXPLORE_PSC_STATE_H
#define LOCKSTEP_EXPLORE_PSC_STATE_H

#include "model.h"

#define PSC_NODES 64
typedef uint64_t set; /* a set of nodes; a relation is set[PSC_NODES], row a: the nodes a relates to */

/* One atomic event as the check sees it. */
typedef struct psc_node {
    const event *e;
    bool read, write, fence, sc;
    int reads_from; /* node index; -1: a store that is no node (an initial value) */
    int rf_event;   /* the event it read, -1 the initial value */
    uint32_t epoch;
    vclock clock;
} psc_node;

typedef struct psc_graph {
    psc_node n[PSC_NODES];
    int count;
    set sb[PSC_NODES], hb[PSC_NODES], mo[PSC_NODES], rf[PSC_NODES], fr[PSC_NODES], loc[PSC_NODES];
} psc_graph;

/* The check's state, its part of the world (run/world.h). */
typedef struct psc_state {
    bool seen_sc; /* a seq_cst access or fence has run in this schedule */
    psc_graph g;  /* psc_allows' graph, rebuilt at each call */
} psc_state;

/* The finished schedule's graph: its scenario threads' atomic events and
 * fences (not the main thread's setup and checks), with sb, hb, mo, rf, fr
 * and same-location; rebuilt at each call, into psc_state's graph. */
const psc_graph *psc_execution(void);
/* RC11's psc over g, into psc (g->count rows). */
void psc_relation(const psc_graph *g, set *psc);

#endif /* LOCKSTEP_EXPLORE_PSC_STATE_H */
