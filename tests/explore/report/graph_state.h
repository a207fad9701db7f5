/* graph.c's part of a schedule's world (run/world.h): its types, declared
 * here so that report/part.h can hold the part by value; only graph.c reads it. */
#ifndef LOCKSTEP_EXPLORE_GRAPH_STATE_H
#define LOCKSTEP_EXPLORE_GRAPH_STATE_H

#include "model.h"

#define GRAPH_NODES 512 /* boxes a graph draws at most */

typedef struct box {
    int event;
    int col;           /* -1: the initial values' row */
    int over;          /* an initial value: the column it sits over */
    int row;
    char text[480];    /* wrapped, '\n' between lines */
    char where[64];
    int chars, lines;  /* its size, in characters and lines */
    double x, y;       /* its centre, in points, y down */
} box;

/* The graph being laid out, its part of the world (run/world.h):
 * its boxes, then (the layout, below) its columns and rows. */
typedef struct graph_state {
    box box[GRAPH_NODES];
    int boxes;
    int cols, col_thread[THREADS];
    double col_w[THREADS], col_x[THREADS], row_y[GRAPH_NODES + 2], width, bottom;
    /* Per event: whether its box is drawn (collect), and, for
     * modification_order, whether its location's stores are drawn yet. */
    bool shown[MAX_EVENTS];
    bool done[MAX_EVENTS];
    int ids[MAX_EVENTS]; /* collect's events, in trace order */
    int mo[GRAPH_NODES];   /* one location's stores, in modification order */
    int mo_next[MAX_EVENTS]; /* per store (the initial value too): the next store in its location's mo, -1 none */
    double page_w;           /* --graph-width, points; 0: PAGE_W */
    const explore_verdict *cycle; /* a candidate's: the cycle RC11 rejects, drawn in red; NULL none */
} graph_state;

#endif /* LOCKSTEP_EXPLORE_GRAPH_STATE_H */
