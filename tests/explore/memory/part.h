/* The memory layer's part of the world (core/world.h): the guard region (mapped once), each thread's next allocations (injected failures, names).
 * One part per file of the layer, by value, each read only by its file
 * through its st(); the layer reaches its part through memory_now(), and
 * includes nothing of a later layer (callgraph.py checks it). */
#ifndef LOCKSTEP_EXPLORE_MEMORY_PART_H
#define LOCKSTEP_EXPLORE_MEMORY_PART_H

#include "core/world.h"
#include "memory/alloc_state.h"
#include "memory/upcoming_state.h"

typedef struct memory_part {
    alloc_state alloc;
    upcoming_state upcoming;
} memory_part;

/* The running world's memory part (run/world.c attaches it). */
static inline memory_part *memory_now(void) { return world_parts[WORLD_MEMORY]; }

#endif /* LOCKSTEP_EXPLORE_MEMORY_PART_H */
