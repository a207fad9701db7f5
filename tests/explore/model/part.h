/* The model layer's part of the world (core/world.h): clocks, race shadow, fences, locations (--model, set once), the seq_cst check.
 * One part per file of the layer, by value, each read only by its file
 * through its st(); the layer reaches its part through model_now(), and
 * includes nothing of a later layer (callgraph.py checks it). */
#ifndef LOCKSTEP_EXPLORE_MODEL_PART_H
#define LOCKSTEP_EXPLORE_MODEL_PART_H

#include "core/world.h"
#include "model/clock_state.h"
#include "model/datarace_state.h"
#include "model/fence_state.h"
#include "model/location_state.h"
#include "model/psc_state.h"

typedef struct model_part {
    clock_state clock;
    datarace_state datarace;
    fence_state fence;
    location_state location;
    psc_state psc;
} model_part;

/* The running world's model part (run/world.c attaches it). */
static inline model_part *model_now(void) { return world_parts[WORLD_MODEL]; }

#endif /* LOCKSTEP_EXPLORE_MODEL_PART_H */
