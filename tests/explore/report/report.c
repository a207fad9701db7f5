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
#include "core/json.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* This file's part of the schedule's world, through its layer's (report/part.h). */
static inline report_state *st(void) { return &report_now()->report; }

void explore_set_graph_path(const char *path) { st()->graph_path = path; }

void explore_set_json_path(const char *path) { st()->json_path = path; }

bool explore_json_open(json *j, const char *program)
{
    if (!st()->json_path)
        return false;
    FILE *f = fopen(st()->json_path, "w");
    if (!f) {
        fprintf(stderr, "explore: cannot write %s\n", st()->json_path);
        return false;
    }
    json_begin(j, f);
    json_object(j);
    json_key(j, "program");
    json_string(j, program);
    json_key(j, "step");
    json_int(j, explore_step);
    json_key(j, "component");
    json_string(j, explore_component);
    return true;
}

bool explore_json_begin(json *j, const explore_scenario *s, const char *program, const char *result)
{
    if (!explore_json_open(j, program))
        return false;
    json_key(j, "scenario");
    json_string(j, s->name);
    json_key(j, "result");
    json_string(j, result);
    return true;
}

bool explore_json_end(json *j)
{
    json_end_object(j);
    fputc('\n', j->f);
    return fclose(j->f) == 0;
}

/* The failure as --json gives it: what the text says, and the trace and
 * graph as data. */
static void failure_json(const explore_scenario *s, const char *program, long schedules)
{
    json j;
    char id[2048], weaken[512], replay[4096];
    if (!explore_json_begin(&j, s, program, "failed"))
        return;
    path_id(id, sizeof id);
    weaken_args(weaken, sizeof weaken);
    snprintf(replay, sizeof replay, "%s %s%s --replay %s", program ? program : "explore", s->name, weaken, id);
    json_key(&j, "kind");
    json_string(&j, fail_kind());
    json_key(&j, "message");
    json_string(&j, fail_message());
    json_key(&j, "schedules"); /* the schedules run until this one, this one included */
    json_int(&j, schedules);
    json_key(&j, "schedule");
    json_string(&j, id);
    json_key(&j, "replay");
    json_string(&j, replay);
    json_key(&j, "trace");
    trace_json(&j);
    json_key(&j, "graph");
    graph_json(&j, fail_kind(), fail_message());
    if (!explore_json_end(&j))
        fprintf(stderr, "explore: cannot write %s\n", st()->json_path);
}

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
    failure_json(s, program, schedules);
    fflush(stdout);
    _exit(1);
}
