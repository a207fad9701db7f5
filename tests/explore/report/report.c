/*
 * A failed schedule as a student reads it: the trace (trace.c), the line
 *
 *     explore: FAILED (<kind>): <message>
 *
 * how many schedules the search ran, the command that replays this one, and
 * with --graph the execution graph (graph.c). run.c prints it once the
 * failure has unwound to it (fail.c); then the process ends, status 1.
 */
#include "report/part.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* This file's part of the schedule's world, through its layer's (report/part.h). */
static inline report_state *st(void) { return &report_now()->report; }

void explore_set_graph_path(const char *path) { st()->graph_path = path; }

static void footer(const explore_scenario *s, const char *program, long schedules)
{
    char id[2048], weaken[512];
    path_id(id, sizeof id);
    weaken_args(weaken, sizeof weaken);
    if (!path_replaying() && path_reduced())
        printf("explore: found after %ld schedule%s (the search with no bound, partial-order reduced)\n", schedules,
               schedules == 1 ? "" : "s");
    else if (!path_replaying())
        printf("explore: found after %ld schedule%s (bound %d: at most %d preemptions and stale reads)\n", schedules,
               schedules == 1 ? "" : "s", path_bound(), path_bound());
    printf("explore: step %02d %s %s, schedule %s; replay it with:\n    %s %s%s --replay %s\n", explore_step,
           explore_component, s->name, id, program ? program : "explore", s->name, weaken, id);
}

_Noreturn void report_failure(const explore_scenario *s, const char *program, long schedules)
{
    fail_catch(NULL); /* a failure while reporting ends the process with its line alone */
    fflush(stderr);
    printf("\nexplore: the failing schedule, one column per thread, one line per step:\n\n");
    trace_print();
    printf("\nexplore: FAILED (%s): %s\n", fail_kind(), fail_message());
    footer(s, program, schedules);
    if (st()->graph_path) {
        graph_write(st()->graph_path, fail_kind(), fail_message());
        size_t n = strlen(st()->graph_path);
        bool svg = n >= 4 && strcmp(st()->graph_path + n - 4, ".svg") == 0;
        printf("explore: the execution graph is in %s%s\n", st()->graph_path, svg ? "" : " (Graphviz: dot -Tsvg)");
    }
    fflush(stdout);
    _exit(1);
}
