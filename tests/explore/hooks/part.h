/* The hooks layer's part of the world (core/world.h): resume nesting (spurious failures and wake-ups, set once), the weakenings asked for (set once).
 * One part per file of the layer, by value, each read only by its file
 * through its st(); the layer reaches its part through hooks_now(), and
 * includes nothing of a later layer (callgraph.py checks it). */
#ifndef LOCKSTEP_EXPLORE_HOOKS_PART_H
#define LOCKSTEP_EXPLORE_HOOKS_PART_H

#include "core/world.h"
#include "hooks/point_state.h"
#include "hooks/weaken_state.h"

typedef struct hooks_part {
    point_state point;
    weaken_state weaken;
} hooks_part;

/* The running world's hooks part (run/world.c attaches it). */
static inline hooks_part *hooks_now(void) { return world_parts[WORLD_HOOKS]; }

#endif /* LOCKSTEP_EXPLORE_HOOKS_PART_H */
