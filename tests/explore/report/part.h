/* The report layer's part of the world (core/world.h): --graph, the trace's lines (its width, set once), the graph's layout.
 * One part per file of the layer, by value, each read only by its file
 * through its st(); the layer reaches its part through report_now(), and
 * includes nothing of a later layer (callgraph.py checks it). */
#ifndef LOCKSTEP_EXPLORE_REPORT_PART_H
#define LOCKSTEP_EXPLORE_REPORT_PART_H

#include "core/world.h"
#include "report/report_state.h"
#include "report/trace_state.h"
#include "report/graph_state.h"

typedef struct report_part {
    report_state report;
    trace_state trace;
    graph_state graph;
} report_part;

/* The running world's report part (run/world.c attaches it). */
static inline report_part *report_now(void) { return world_parts[WORLD_REPORT]; }

#endif /* LOCKSTEP_EXPLORE_REPORT_PART_H */
