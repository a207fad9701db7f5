/* The search layer's part of the world (core/world.h): the path (the round's decisions, kept across its schedules), the executions met in the round.
 * One part per file of the layer, by value, each read only by its file
 * through its st(); the layer reaches its part through search_now(), and
 * includes nothing of a later layer (callgraph.py checks it). */
#ifndef LOCKSTEP_EXPLORE_SEARCH_PART_H
#define LOCKSTEP_EXPLORE_SEARCH_PART_H

#include "core/world.h"
#include "search/path_state.h"
#include "search/execution_state.h"

typedef struct search_part {
    path_state path;
    execution_state execution;
} search_part;

/* The running world's search part (run/world.c attaches it). */
static inline search_part *search_now(void) { return world_parts[WORLD_SEARCH]; }

#endif /* LOCKSTEP_EXPLORE_SEARCH_PART_H */
