/* Where each layer finds its part of the running world (run/world.h):
 * one pointer per layer, which run/world.c points into the one world
 * before anything runs. The bottom of the layering, so that every layer
 * can reach its own part while knowing nothing of the layers above it:
 * a part's type is its layer's (search/part.h), the world's whole type
 * is run's. */
#ifndef LOCKSTEP_EXPLORE_CORE_WORLD_H
#define LOCKSTEP_EXPLORE_CORE_WORLD_H

#include "model.h"

/* The layers, earliest first (REFERENCE.md, "The calls go one way"). */
enum world_layer {
    WORLD_CORE, WORLD_SEARCH, WORLD_MODEL, WORLD_SCHEDULER, WORLD_MEMORY, WORLD_HOOKS, WORLD_REPORT, WORLD_RUN,
    WORLD_LAYERS
};

/* world_parts[WORLD_SEARCH] is the search layer's part (search_part), and
 * so on: set by run/world.c, read through each layer's X_now(). */
extern void *world_parts[WORLD_LAYERS];

#endif /* LOCKSTEP_EXPLORE_CORE_WORLD_H */
