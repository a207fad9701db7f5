/* graph.c's drawing in SVG (--graph FILE.svg): the boxes, labels, notes,
 * legend and edges of the layout graph.c computed, written by the explorer
 * itself. The .dot file asks Graphviz to draw the same pinned layout; this
 * is for where there is no Graphviz (the course's litmus playground runs
 * the explorer in a browser) and for a reader who has none. */
#ifndef LOCKSTEP_EXPLORE_GRAPH_SVG_H
#define LOCKSTEP_EXPLORE_GRAPH_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A box: its centre and size, in points, y down (graph.c's units). */
typedef struct svg_rect {
    double x, y, w, h;
} svg_rect;

/* An edge between two boxes, as graph.c decided to draw it. */
typedef struct svg_edge {
    const char *from_id, *to_id; /* its boxes' ids, as svg_box was given them */
    svg_rect from, to;
    const char *color;
    const char *style; /* NULL (solid), "dashed", "dotted" or "bold" */
    double pen;        /* its width, points; 0: 1 */
    const char *label; /* its relation, at its middle, in its colour; NULL: none */
    const char *head;  /* a cycle's relation, named at its head; NULL: none */
    bool both;         /* an arrow at each end (a race: neither comes first) */
    int side;          /* +1 / -1: leaves and enters the boxes' right / left side,
                        * around the boxes of their column between them; 0: straight */
    int nth, of;       /* its place among the edges that join the same two boxes */
    const svg_rect *boxes; /* every box of the graph: a line across bows around those in its way */
    int nboxes;
} svg_edge;

/* The drawing being written in three layers: edges under the boxes (as
 * the .dot asks with outputorder=edgesfirst), the boxes, and the edges'
 * labels over both; and the extent of all of it, for the viewBox. */
typedef struct svg_canvas {
    FILE *edges, *nodes, *labels;
    char *edges_text, *nodes_text, *labels_text;
    size_t edges_len, nodes_len, labels_len;
    double x0, y0, x1, y1;
    double label_size; /* an edge's label, points */
} svg_canvas;

bool svg_begin(svg_canvas *c, double label_size);
void svg_box(svg_canvas *c, const char *id, svg_rect r, const char *color, const char *style, double pen, int line,
             const char *text, const char *where);
void svg_label(svg_canvas *c, double x, double y, double size, const char *text);
void svg_note(svg_canvas *c, svg_rect r, const char *color, const char *text);
void svg_legend_row(svg_canvas *c, double x, double y, const char *color, const char *mark, const char *text);
void svg_draw_edge(svg_canvas *c, const svg_edge *e);
void svg_end(svg_canvas *c, FILE *out);

#endif /* LOCKSTEP_EXPLORE_GRAPH_SVG_H */
