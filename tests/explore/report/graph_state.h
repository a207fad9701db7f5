/* graph.c's part of a schedule's world (run/world.h): its types, declared
 * here so that report/part.h can hold the part by value; only graph.c reads it. */
#ifndef LOCKSTEP_EXPLORE_GRAPH_STATE_H
#define LOCKSTEP_EXPLORE_GRAPH_STATE_H

#include "model.h"
#include "report/graph_svg.h"

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

/* An edge, as graph.c decided to draw it: between two events' boxes (to:
 * GRAPH_NEVER, the box of the resume that never came). */
#define GRAPH_NEVER (-2)
typedef struct graph_edge {
    int from, to;
    const char *color;
    const char *style; /* NULL: solid */
    double pen;        /* 0: Graphviz's 1 */
    const char *label; /* its relation, at its middle; NULL: none */
    const char *head;  /* a cycle's relation, at its head; NULL: none */
    bool both;         /* a race: an arrow at each end */
    char port;         /* 'e' / 'w': a phone's edge down one column leaves and enters that side; 0: any */
} graph_edge;

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
    /* --graph FILE.svg: drawn here (graph_svg.c), not by Graphviz; --json:
     * the graph as data. The edges kept until all are known (two between
     * the same boxes bow apart), the box of a lost wake-up's resume that
     * never came. */
    enum graph_form { GRAPH_DOT, GRAPH_SVG, GRAPH_DATA } form; /* GRAPH_DATA: graph_json's, drawn by no one */
    svg_canvas canvas;
    graph_edge *edge; /* malloc'd as they come, freed once drawn */
    int edges, edge_room;
    svg_rect never;
    char never_text[200];
} graph_state;

#endif /* LOCKSTEP_EXPLORE_GRAPH_STATE_H */
