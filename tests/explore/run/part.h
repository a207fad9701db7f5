/* The run layer's part of the world (core/world.h): the search's counts and options.
 * One part per file of the layer, by value, each read only by its file
 * through its st(); the layer reaches its part through run_now(), and
 * includes nothing of a later layer (callgraph.py checks it). */
#ifndef LOCKSTEP_EXPLORE_RUN_PART_H
#define LOCKSTEP_EXPLORE_RUN_PART_H

#include "core/world.h"
#include "run/run_state.h"

typedef struct run_part {
    run_state run;
} run_part;

/* The running world's run part (run/world.c attaches it). */
static inline run_part *run_now(void) { return world_parts[WORLD_RUN]; }

#endif /* LOCKSTEP_EXPLORE_RUN_PART_H */
