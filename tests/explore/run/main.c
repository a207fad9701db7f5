/*
 * explore_<component>_stepNN: runs one scenario of this binary's component
 * under the explorer.
 *
 *     explore_task_step03 completion_vs_await          every schedule, or at most 2 preemptions if too many
 *     explore_task_step03 completion_vs_await -p 3     at most 3 preemptions (also LOCKSTEP_EXPLORE_PREEMPTIONS)
 *     explore_task_step03 completion_vs_await --replay 1.0.1
 *     explore_task_step03 completion_vs_await --graph g.dot  a failure also writes its execution graph
 *     explore_task_step03 completion_vs_await --graph g.dot --graph-width 340   the same, laid out for a phone
 *     explore_task_step03 completion_vs_await --graph g.svg  the same graph in SVG, drawn by the explorer itself
 *     explore_task_step03 completion_vs_await --weaken task.c:102=release   as if that order were weaker
 *     explore_task_step03 completion_vs_await --check-reduction   the reduced search's executions against
 *                                                every interleaving's (the reduction's oracle; =sleep: against
 *                                                sleep sets alone, for a scenario too big for every interleaving)
 *     explore_task_step03 --list                 the scenarios (--json FILE: as data too)
 *
 * Exit status: 0 every schedule passed, 1 one failed (its trace is
 * printed) or --check-reduction found an execution the reduced search did
 * not meet, 2 bad usage (a --weaken that names no atomic operation of this
 * binary, or no weaker order, is bad usage), 77 the scenario needs a later step.
 */
#include "explore.h"
#include "core/json.h"
#include "skip_log.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(const char *program)
{
    fprintf(stderr, "usage: %s SCENARIO [--preemptions P | -p P] [--replay ID] [--graph FILE.dot|FILE.svg [--graph-width PT]]\n"
                    "       [--weaken FILE:LINE=ORDER]... [--model rc11|c11] [--check-reduction[=sleep]] [--json FILE]\n       %s --list [--json FILE]\n", program,
            program);
    return 2;
}

/* The options, one table (getopt_long): each long option's value is its
 * short letter, or one of these for those that have none. */
enum { OPT_LIST = 256, OPT_GRAPH, OPT_WEAKEN, OPT_JSON }; /* (and the explorer's shared ones: EXPLORE_OPT_...) */

static const struct option g_options[] = {
    {"list", no_argument, NULL, OPT_LIST},
    {"preemptions", required_argument, NULL, 'p'},
    {"replay", required_argument, NULL, EXPLORE_OPT_REPLAY},
    {"graph", required_argument, NULL, OPT_GRAPH},
    {"graph-width", required_argument, NULL, EXPLORE_OPT_GRAPH_WIDTH},
    {"weaken", required_argument, NULL, OPT_WEAKEN},
    {"model", required_argument, NULL, EXPLORE_OPT_MODEL},
    {"check-reduction", optional_argument, NULL, EXPLORE_OPT_CHECK_REDUCTION},
    {"json", required_argument, NULL, OPT_JSON},
    {0},
};

/* --list: the scenarios, a line each; with --json FILE, the same as data
 * in FILE (each one's name, first step, last step or null, and what it
 * does). Exit status 0, or 1 if FILE cannot be written. */
static int list(const char *program, const char *json_path)
{
    for (size_t k = 0; k < explore_nscenarios; ++k)
        printf("%-28s (from step %02d) %s\n", explore_scenarios[k].name, explore_scenarios[k].min_step,
               explore_scenarios[k].about);
    json j;
    if (!json_path)
        return 0;
    if (!explore_json_open(&j, program))
        return 1;
    json_key(&j, "scenarios");
    json_array(&j);
    for (size_t k = 0; k < explore_nscenarios; ++k) {
        const explore_scenario *s = &explore_scenarios[k];
        json_object(&j);
        json_key(&j, "name");
        json_string(&j, s->name);
        json_key(&j, "min_step");
        json_int(&j, s->min_step);
        json_key(&j, "max_step");
        if (s->max_step)
            json_int(&j, s->max_step);
        else
            json_null(&j);
        json_key(&j, "about");
        json_string(&j, s->about);
        json_end_object(&j);
    }
    json_end_array(&j);
    return explore_json_end(&j) ? 0 : 1;
}

/* A --weaken refused, as --json gives it (when asked for: JSON_PATH), so
 * that a program tells one refusal from another by its name, not by its
 * message: "refused", the option, the refusal's name (explore_weaken) and
 * why. */
static void refused_json(const char *program, const char *json_path, const char *spec, const char *refusal,
                         const char *why)
{
    json j;
    if (!json_path || !explore_json_open(&j, program))
        return;
    json_key(&j, "result");
    json_string(&j, "refused");
    json_key(&j, "option");
    json_string(&j, "--weaken");
    json_key(&j, "value");
    json_string(&j, spec);
    json_key(&j, "refusal");
    json_string(&j, refusal);
    json_key(&j, "why");
    json_string(&j, why);
    explore_json_end(&j);
}

/* The command line into o (and the explorer's settings: --weaken,
 * --graph); *name the scenario's. Returns -1 to go on, else the exit
 * status (0 after --list, 2 on a bad argument, said on stderr; a --weaken
 * refused is said in --json's file too, wherever --json stands). */
static int parse_options(int argc, char **argv, explore_options *o, const char **name)
{
    const char *program = argv[0], *json_path = NULL;
    char why[1024];
    bool listing = false;
    const char *weaken[16];
    int nweaken = 0, c;
    while ((c = getopt_long(argc, argv, "p:", g_options, NULL)) != -1) {
        switch (c) {
        case OPT_LIST:
            listing = true;
            break;
        case 'p':
            if (!explore_parse_whole(optarg, 0, 1000000, &o->bound)) {
                fprintf(stderr, "%s: --preemptions %s: a whole number, 0 or more\n", program, optarg);
                return usage(program);
            }
            o->bound_is_hard = true; /* given: stop at it even when the scenario is small */
            break;
        case OPT_WEAKEN: /* taken after the loop, when --json is known */
            if (nweaken == (int)(sizeof weaken / sizeof weaken[0])) {
                fprintf(stderr, "%s: --weaken: at most 8 at once\n", program);
                return 2;
            }
            weaken[nweaken++] = optarg;
            break;
        case OPT_GRAPH:
            explore_set_graph_path(optarg);
            break;
        case OPT_JSON:
            explore_set_json_path(optarg);
            json_path = optarg;
            break;
        case EXPLORE_OPT_MODEL: case EXPLORE_OPT_CHECK_REDUCTION: case EXPLORE_OPT_GRAPH_WIDTH: case EXPLORE_OPT_REPLAY:
            if (!explore_take_option(c, optarg, o, why, sizeof why)) {
                fprintf(stderr, "%s: %s\n", program, why);
                return usage(program);
            }
            break;
        default: /* getopt_long said what it did not know */
            return usage(program);
        }
    }
    for (int k = 0; k < nweaken; ++k) {
        const char *refusal = explore_weaken(weaken[k], why, sizeof why);
        if (refusal) {
            fprintf(stderr, "%s: %s\n", program, why);
            refused_json(program, json_path, weaken[k], refusal, why);
            return 2;
        }
    }
    if (listing)
        return optind == argc ? list(program, json_path) : usage(program);
    if (optind != argc - 1)
        return usage(program); /* one scenario */
    *name = argv[optind];
    return -1;
}

/* A scenario this step does not have: "SKIPPED: <test>: <why>", and, when
 * ctest runs us (LOCKSTEP_SKIP_LOG, see CTestCustom.cmake.in), the same
 * line appended to the run's list of skips, which ctest prints after its
 * summary (skip_log.c, as for a unit test). The one place that
 * decides which steps a scenario applies to: CMake registers every one. */
static int skip(const explore_scenario *s, const char *program)
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
    json j;
    if (explore_json_begin(&j, s, program, "skipped")) {
        json_key(&j, "why");
        json_string(&j, line);
        explore_json_end(&j);
    }
    return 77;
}

/* Every schedule passed, as --json gives it: the executions and schedules
 * the search met, how it searched (reduced with no bound, every
 * interleaving, bounded), whether it met every execution, and, with
 * --check-reduction, whether the reduction met all the oracle did. */
static void passed_json(const explore_scenario *s, const explore_options *o, long executions, long schedules,
                        int reduction_status)
{
    json j;
    if (!explore_json_begin(&j, s, o->program, reduction_status ? "failed" : "passed"))
        return;
    bool reduced = !o->bound_is_hard, complete = explore_exhaustive();
    json_key(&j, "executions");
    json_int(&j, executions);
    json_key(&j, "schedules");
    json_int(&j, schedules);
    json_key(&j, "search");
    json_string(&j, reduced ? "reduced" : complete ? "every interleaving" : "bounded");
    json_key(&j, "bound"); /* preemptions: the bound a bounded search stopped at, or the most any needed */
    if (reduced)
        json_null(&j);
    else
        json_int(&j, explore_bound());
    json_key(&j, "complete"); /* every execution met */
    json_bool(&j, complete);
    if (o->check_reduction) {
        json_key(&j, "reduction_checked");
        json_bool(&j, reduction_status == 0);
    }
    explore_json_end(&j);
}

/* One schedule replayed (--replay) that passed, as --json gives it: its
 * id, as the search named it in full, and its trace as data. */
static void replayed_json(const explore_scenario *s, const explore_options *o)
{
    json j;
    char id[2048];
    if (!explore_json_begin(&j, s, o->program, "passed"))
        return;
    explore_schedule_id(id, sizeof id);
    json_key(&j, "schedule");
    json_string(&j, id);
    json_key(&j, "trace");
    explore_trace_json(&j);
    explore_json_end(&j);
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
    int status = parse_options(argc, argv, &o, &name);
    if (status >= 0)
        return status;
    if (o.check_reduction && (o.bound_is_hard || o.replay))
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
        return skip(s, program);

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
    status = o.check_reduction && explore_compare_search(s, &o, ctx) != 0 ? 1 : 0;
    if (!o.replay)
        passed_json(s, &o, e, n, status);
    else
        replayed_json(s, &o);
    free(ctx);
    return status;
}
