/*
 * The one world (run/world.h), and each layer pointed at its part of it
 * (core/world.h).
 *
 * Static storage, not the stack or the heap: the world is large (the
 * event log, the race shadow, the path's transitions), lives as long as
 * the process, and its few non-zero initial values are constants. The
 * layers are pointed at it before main runs (a constructor), since a
 * program may call into the explorer (an option's parser, a name) before
 * its search starts.
 */
#include "run/world.h"

static explore_world g_world = {
    .model.datarace = {.generation = 1}, /* 0 marks a shadow entry empty */
    .search.path = {.bound = 2},
    .scheduler.thread = {.running = EXPLORE_MAIN, .current = EXPLORE_MAIN},
};

__attribute__((constructor)) static void attach(void)
{
    world_parts[WORLD_CORE] = &g_world.core;
    world_parts[WORLD_SEARCH] = &g_world.search;
    world_parts[WORLD_MODEL] = &g_world.model;
    world_parts[WORLD_SCHEDULER] = &g_world.scheduler;
    world_parts[WORLD_MEMORY] = &g_world.memory;
    world_parts[WORLD_HOOKS] = &g_world.hooks;
    world_parts[WORLD_REPORT] = &g_world.report;
    world_parts[WORLD_RUN] = &g_world.run;
}

explore_world *world_initial(void)
{
    attach();
    return &g_world;
}
