/* The core layer's part of the world (core/world.h): the schedule's events, names, blocks and failure (names keeps the scenario and its context, set once).
 * One part per file of the layer, by value, each read only by its file
 * through its st(); the layer reaches its part through core_now(), and
 * includes nothing of a later layer (callgraph.py checks it). */
#ifndef LOCKSTEP_EXPLORE_CORE_PART_H
#define LOCKSTEP_EXPLORE_CORE_PART_H

#include "core/world.h"
#include "core/event_state.h"
#include "core/names_state.h"
#include "core/block_state.h"
#include "core/fail_state.h"

typedef struct core_part {
    event_state event;
    names_state names;
    block_state block;
    fail_state fail;
} core_part;

/* The running world's core part (run/world.c attaches it). */
static inline core_part *core_now(void) { return world_parts[WORLD_CORE]; }

#endif /* LOCKSTEP_EXPLORE_CORE_PART_H */
