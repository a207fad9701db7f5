/* The scheduler layer's part of the world (core/world.h): the scenario's threads and whose turn it is.
 * One part per file of the layer, by value, each read only by its file
 * through its st(); the layer reaches its part through scheduler_now(), and
 * includes nothing of a later layer (callgraph.py checks it). */
#ifndef LOCKSTEP_EXPLORE_SCHEDULER_PART_H
#define LOCKSTEP_EXPLORE_SCHEDULER_PART_H

#include "core/world.h"
#include "scheduler/thread_state.h"

typedef struct scheduler_part {
    thread_state thread;
} scheduler_part;

/* The running world's scheduler part (run/world.c attaches it). */
static inline scheduler_part *scheduler_now(void) { return world_parts[WORLD_SCHEDULER]; }

#endif /* LOCKSTEP_EXPLORE_SCHEDULER_PART_H */
