/*
 * The one world (run/world.h), and each layer pointed at its part of it
 * (core/world.h).
 *
 * Static storage, not the stack or the heap: the world is large (the
 * event log, the race shadow, the path's transitions: some 38 MB) and
 * lives as long as the process. Zero-initialized, so that it is .bss,
 * which costs the file nothing: an initializer with any non-zero field
 * puts the whole object in .data, written into every binary (38 MB each,
 * some 2.5 GB of explorer programs in one build tree). Its few non-zero
 * initial values are set by code instead, once, before main runs (a
 * constructor), since a program may call into the explorer (an option's
 * parser, a name) before its search starts.
 */
#include "run/world.h"

#include <stdbool.h>

static explore_world g_world;

/* Points the layers at their parts, and the first time gives the parts
 * their initial values; again later, it leaves the world as it is. */
static void attach(void)
{
    static bool attached;
    if (attached)
        return;
    attached = true;
    g_world.model.datarace.generation = 1; /* 0 marks a shadow entry empty */
    g_world.search.path.bound = 2;
    g_world.scheduler.thread.running = EXPLORE_MAIN;
    g_world.scheduler.thread.current = EXPLORE_MAIN;
    world_parts[WORLD_CORE] = &g_world.core;
    world_parts[WORLD_SEARCH] = &g_world.search;
    world_parts[WORLD_MODEL] = &g_world.model;
    world_parts[WORLD_SCHEDULER] = &g_world.scheduler;
    world_parts[WORLD_MEMORY] = &g_world.memory;
    world_parts[WORLD_HOOKS] = &g_world.hooks;
    world_parts[WORLD_REPORT] = &g_world.report;
    world_parts[WORLD_RUN] = &g_world.run;
}

__attribute__((constructor)) static void attach_before_main(void) { attach(); }

explore_world *world_initial(void)
{
    attach();
    return &g_world;
}
