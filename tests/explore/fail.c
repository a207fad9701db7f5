/*
 * A failure: the trace of the schedule, the failure line
 *
 *     explore: FAILED (<kind>): <message>
 *
 * the command that replays it, and with --graph the execution graph. The
 * checks that find a failure name the events that make it first
 * (fail_blame: the free and the use, the two racing accesses, a leaked
 * block's allocation, the lock a deadlocked thread waits behind), so that
 * the graph can draw them; a scenario names the object of its own
 * failures (explore_culprit: the coroutine nobody resumed).
 */
#include "model.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static evidence g_evidence;
static const explore_scenario *g_scenario;
static const char *g_program;
static const char *g_graph_path;

evidence *fail_evidence(void) { return &g_evidence; }
void fail_reset(void) { g_evidence = (evidence){.n = 0}; }
void explore_set_graph_path(const char *path) { g_graph_path = path; }
void explore_culprit(const volatile void *obj) { g_evidence.culprit = obj; }

void fail_set_program(const explore_scenario *s, const char *program)
{
    g_scenario = s;
    g_program = program;
}

void fail_blame(const event *e)
{
    int i = event_index(e);
    if (i >= 0 && g_evidence.n < (int)(sizeof g_evidence.events / sizeof g_evidence.events[0]))
        g_evidence.events[g_evidence.n++] = i;
}

static void footer(void)
{
    char id[2048], weaken[512];
    path_id(id, sizeof id);
    weaken_args(weaken, sizeof weaken);
    long n = run_schedules();
    if (!path_replaying())
        printf("explore: found after %ld schedule%s (bound %d: at most %d preemptions and stale reads)\n", n,
               n == 1 ? "" : "s", path_bound(), path_bound());
    printf("explore: step %02d %s %s, schedule %s; replay it with:\n    %s %s%s --replay %s\n", explore_step,
           explore_component, g_scenario ? g_scenario->name : "?", id, g_program ? g_program : "explore",
           g_scenario ? g_scenario->name : "?", weaken, id);
}

_Noreturn void explore_fail(const char *kind, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fflush(stderr);
    printf("\nexplore: the failing schedule, one column per thread, one line per step:\n\n");
    trace_print();
    printf("\nexplore: FAILED (%s): %s\n", kind, msg);
    footer();
    if (g_graph_path) {
        graph_write(g_graph_path, kind, msg);
        printf("explore: the execution graph is in %s (Graphviz: dot -Tsvg)\n", g_graph_path);
    }
    fflush(stdout);
    _exit(1);
}
