/*
 * A schedule's world: everything the explorer builds while it runs one
 * schedule (the events, the clocks, the locations, the blocks, the path),
 * one value reached through one pointer, as loom keeps its Execution.
 *
 * Not named "execution": search/execution.c reduces a schedule to an RC11
 * execution (its events, reads-from and modification order), a different
 * thing; the world is what the run leaves behind, that and more.
 *
 * Each part is one file's, declared in a small header beside it
 * (model/location_state.h for model/location.c) and read only by that
 * file, through its st(). A layer's files' parts make its part
 * (model/part.h), which the layer reaches through its pointer
 * (core/world.h), knowing nothing of the layers above it: only run/, the
 * top, knows the world whole. The hooks' entry points, called by the
 * step's code with no context, reach it through those pointers, as loom's
 * do through its scoped thread-local: here plain globals, on the one OS
 * thread the scenario's threads take turns on as coroutines (thread.c).
 * What is per scenario thread is kept here per thread (the trampolines'
 * nesting), or is the running thread's and goes with the turn (where it
 * unwinds to, its quiet flag: thread.c's switch_to saves and restores
 * them).
 *
 * run.c resets the per-schedule parts in one place (run_once), in order;
 * the rest is the search's configuration, set once when it starts
 * (explore_run), or a round's.
 */
#ifndef LOCKSTEP_EXPLORE_RUN_WORLD_H
#define LOCKSTEP_EXPLORE_RUN_WORLD_H

#include "core/part.h"
#include "hooks/part.h"
#include "memory/part.h"
#include "model/part.h"
#include "report/part.h"
#include "run/part.h"
#include "scheduler/part.h"
#include "search/part.h"

/** What one schedule builds, and the search's settings beside it: one
 *  part per layer, by value, in the layers' order (REFERENCE.md, "The
 *  calls go one way"); each layer's part holds its files' parts. A part
 *  mixes both kinds where its file does; its header says which fields are
 *  which. */
typedef struct explore_world {
    core_part core;
    search_part search;
    model_part model;
    scheduler_part scheduler;
    memory_part memory;
    hooks_part hooks;
    report_part report;
    run_part run;
} explore_world;

/** The world the process starts with, its parts' initial values (the race
 *  shadow's first generation, the default bound, the scheduler's turn),
 *  with every layer pointed at its part (core/world.h). */
explore_world *world_initial(void);

#endif /* LOCKSTEP_EXPLORE_RUN_WORLD_H */
