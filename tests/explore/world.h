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
 * file, through its st(). The hooks' entry points, called by the step's
 * code with no context, reach it through the pointer, as loom's do
 * through its scoped thread-local: here a plain global, on the one OS
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
#ifndef LOCKSTEP_EXPLORE_WORLD_H
#define LOCKSTEP_EXPLORE_WORLD_H

#include "model.h"

#include "core/block_state.h"
#include "core/event_state.h"
#include "core/fail_state.h"
#include "core/names_state.h"
#include "hooks/point_state.h"
#include "hooks/weaken_state.h"
#include "memory/alloc_state.h"
#include "memory/upcoming_state.h"
#include "model/clock_state.h"
#include "model/datarace_state.h"
#include "model/fence_state.h"
#include "model/location_state.h"
#include "model/psc_state.h"
#include "report/graph_state.h"
#include "report/report_state.h"
#include "report/trace_state.h"
#include "run/run_state.h"
#include "scheduler/thread_state.h"
#include "search/execution_state.h"
#include "search/path_state.h"

/** What one schedule builds, and the search's settings beside it: one
 *  part per file, by value, in the folders' order (REFERENCE.md, "The
 *  calls go one way"). A part mixes both kinds where its file does; its
 *  header says which fields are which. */
typedef struct explore_world {
    /* core: the schedule's events, names, blocks and failure (names keeps
     * the scenario and its context, set once) */
    event_state event;
    names_state names;
    block_state block;
    fail_state fail;
    /* search: the path (the round's decisions, kept across its
     * schedules), the executions met in the round */
    path_state path;
    execution_state execution;
    /* model: clocks, race shadow, fences, locations (--model, set once),
     * the seq_cst check */
    clock_state clock;
    datarace_state datarace;
    fence_state fence;
    location_state location;
    psc_state psc;
    /* scheduler: the scenario's threads and whose turn it is */
    thread_state thread;
    /* memory: the guard region (mapped once), each thread's next
     * allocations (injected failures, names) */
    alloc_state alloc;
    upcoming_state upcoming;
    /* hooks: resume nesting (spurious failures, set once), the weakenings
     * asked for (set once) */
    point_state point;
    weaken_state weaken;
    /* report: --graph, the trace's lines (its width, set once), the graph's layout */
    report_state report;
    trace_state trace;
    graph_state graph;
    /* run: the search's counts and options */
    run_state run;
} explore_world;

/** The current world: every file's st() goes through it. Set before any
 *  explorer code runs (core/world.c) and by explore_run when the search
 *  starts; never NULL. Not thread-safe to change while a schedule runs. */
extern explore_world *world;

/** The world the process starts with: its parts' initial values (the
 *  race shadow's first generation, the default bound, the scheduler's
 *  mutex and condition variable). */
explore_world *world_initial(void);

#endif /* LOCKSTEP_EXPLORE_WORLD_H */
