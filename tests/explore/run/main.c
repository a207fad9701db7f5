/*
 * explore_<component>_stepNN: runs one scenario of this binary's component
 * under the explorer.
 *
 *     explore_task_step03 completion_vs_await          every schedule, or at most 2 preemptions if too many
 *     explore_task_step03 completion_vs_await -p 3     at most 3 preemptions (also LOCKSTEP_EXPLORE_PREEMPTIONS)
 *     explore_task_step03 completion_vs_await --replay 1.0.1
 *     explore_task_step03 completion_vs_await --graph g.dot  a failure also writes its execution graph
 *     explore_task_step03 completion_vs_await --graph g.dot --graph-width 340   the same, laid out for a phone
 *     explore_task_step03 completion_vs_await --weaken task.c:102=release   as if that order were weaker
 *     explore_task_step03 completion_vs_await --check-reduction   the reduced search's executions against
 *                                                every interleaving's (the reduction's oracle; =sleep: against
 *                                                sleep sets alone, for a scenario too big for every interleaving)
 *     explore_task_step03 --list
 *
 * Exit status: 0 every schedule passed, 1 one failed (its trace is
 * printed) or --check-reduction found an execution the reduced search did
 * not meet, 2 bad usage (a --weaken that names no atomic operation of this
 * binary, or no weaker order, is bad usage), 77 the scenario needs a later step.
 */
#include "explore.h"
#include "skip_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(const char *program)
{
    fprintf(stderr, "usage: %s SCENARIO [--preemptions P | -p P] [--replay ID] [--graph FILE.dot [--graph-width PT]]\n"
                    "       [--weaken FILE:LINE=ORDER]... [--model rc11|c11] [--check-reduction[=sleep]]\n       %s --list\n", program,
            program);
    return 2;
}

/* A scenario this step does not have: "SKIPPED: <test>: <why>", and, when
 * ctest runs us (LOCKSTEP_SKIP_LOG, see CTestCustom.cmake.in), the same
 * line appended to the run's list of skips, which ctest prints after its
 * summary (skip_log.c, as for a unit test). The one place that
 * decides which steps a scenario applies to: CMake registers every one. */
static int skip(const explore_scenario *s)
{
    char line[512];
    if (explore_step < s->min_step)
        snprintf(line, sizeof line, "step%02d.explore.%s.%s: needs step %d or later", explore_step,
                 explore_component, s->name, s->min_step);
    else
        snprintf(line, sizeof line, "step%02d.explore.%s.%s: applies up to step %02d: %s", explore_step,
                 explore_component, s->name, s->max_step, s->max_why);
    printf("SKIPPED: %s\n", line);
    lockstep_skip_log(line);
    return 77;
}

int main(int argc, char **argv)
{
    const char *program = argv[0], *name = NULL;
    explore_options o;
    char why[1024];
    if (!explore_options_init(&o, program, false, why, sizeof why)) { /* the environment's, then the options' */
        fprintf(stderr, "%s: %s\n", program, why);
        return 2;
    }
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--list") == 0) {
            for (size_t k = 0; k < explore_nscenarios; ++k)
                printf("%-28s (from step %02d) %s\n", explore_scenarios[k].name, explore_scenarios[k].min_step,
                       explore_scenarios[k].about);
            return 0;
        } else if ((strcmp(argv[i], "--preemptions") == 0 || strcmp(argv[i], "-p") == 0) && i + 1 < argc) {
            o.bound = atoi(argv[++i]);
            o.bound_is_hard = true; /* given: stop at it even when the scenario is small */
        } else if (strcmp(argv[i], "--weaken") == 0 && i + 1 < argc) {
            if (!explore_weaken(argv[++i], why, sizeof why)) {
                fprintf(stderr, "%s: %s\n", program, why);
                return 2;
            }
        } else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc && explore_parse_model(argv[i + 1], &o.c11)) {
            ++i;
        } else if (strcmp(argv[i], "--check-reduction") == 0) {
            o.check_reduction = EXPLORE_CHECK_EVERY;
        } else if (strcmp(argv[i], "--check-reduction=sleep") == 0) {
            o.check_reduction = EXPLORE_CHECK_SLEEP;
        } else if (strcmp(argv[i], "--graph") == 0 && i + 1 < argc) {
            explore_set_graph_path(argv[++i]);
        } else if (strcmp(argv[i], "--graph-width") == 0 && i + 1 < argc && atof(argv[i + 1]) > 0) {
            explore_set_graph_width(atof(argv[++i]));
        } else if (strcmp(argv[i], "--replay") == 0 && i + 1 < argc) {
            o.replay = argv[++i];
        } else if (argv[i][0] != '-' && !name) {
            name = argv[i];
        } else {
            return usage(program);
        }
    }
    if (!name || (o.check_reduction && (o.bound_is_hard || o.replay)))
        return usage(program); /* the oracle checks the reduced search: no bound, no replay */
    const explore_scenario *s = NULL;
    for (size_t k = 0; k < explore_nscenarios; ++k)
        if (strcmp(explore_scenarios[k].name, name) == 0)
            s = &explore_scenarios[k];
    if (!s) {
        fprintf(stderr, "%s: no scenario '%s' (--list shows them)\n", program, name);
        return 2;
    }
    if (s->preemptions && !o.bound_is_hard) {
        o.bound = s->preemptions;
        o.bound_is_hard = true;
    }
    if (explore_step < s->min_step || (s->max_step && explore_step > s->max_step))
        return skip(s);

    explore_install_crash_handlers();
    printf("explore: step %02d %s %s: %s\n", explore_step, explore_component, s->name, s->about);
    fflush(stdout);
    /* The scenario's state, zeroed as file-scope variables would be, the
     * same block for every round (and for the oracle's round after them). */
    void *ctx = calloc(1, explore_context_size ? explore_context_size : 1);
    if (!ctx) {
        fprintf(stderr, "%s: out of memory for the scenario's context\n", program);
        return 2;
    }
    explore_name_context(ctx, explore_context_size, explore_context_fields, explore_context_nfields);
    long n = explore_run(s, &o, ctx);
    long e = explore_executions();
    if (!o.replay && explore_exhaustive() && !o.bound_is_hard)
        printf("explore: %ld execution%s, %ld schedule%s explored (partial-order reduced: every execution, with no "
               "bound), every one passed\n", e, e == 1 ? "" : "s", n, n == 1 ? "" : "s");
    else if (!o.replay && explore_exhaustive())
        printf("explore: %ld execution%s, %ld schedule%s explored, every interleaving (exhaustive: none needs more "
               "than %d preemption%s), every one passed\n", e, e == 1 ? "" : "s", n, n == 1 ? "" : "s",
               explore_bound(), explore_bound() == 1 ? "" : "s");
    else if (!o.replay && !o.bound_is_hard)
        printf("explore: %ld executions, %ld schedules explored (partial-order reduced, with no bound), every one "
               "passed; but a location had more stores than the model keeps: some executions may be missing\n", e,
               n);
    else if (!o.replay)
        printf("explore: %ld executions, %ld schedules explored, every one with at most %d preemption%s (bounded: "
               "schedules with more were skipped), every one passed\n", e, n, explore_bound(),
               explore_bound() == 1 ? "" : "s");
    int status = o.check_reduction && explore_compare_search(s, &o, ctx) != 0 ? 1 : 0;
    free(ctx);
    return status;
}
