/*
 * The one world (world.h) and the pointer every file reaches it through.
 *
 * Static storage, not the stack or the heap: the world is large (the
 * event log, the race shadow, the path's transitions), lives as long as
 * the process, and its few non-zero initial values are constants.
 */
#include "world.h"

static explore_world g_world = {
    .datarace = {.generation = 1}, /* 0 marks a shadow entry empty */
    .path = {.bound = 2},
    .thread = {.running = EXPLORE_MAIN, .current = EXPLORE_MAIN},
};

explore_world *world = &g_world;

explore_world *world_initial(void) { return &g_world; }
