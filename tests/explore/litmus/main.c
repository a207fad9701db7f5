/*
 * explore_litmus: runs herd7's C litmus tests under the explorer's C11 model
 * and prints each result in herd7's shape.
 *
 *     explore_litmus MP.litmus SB.litmus ...     every final state of each
 *     explore_litmus --check MP.litmus           and compare with its "expect" lines
 *     explore_litmus --trace MP.litmus           a schedule for each final state, as first reached
 *     explore_litmus --graph g.dot MP.litmus     an execution graph for each: g.1.dot, g.2.dot, ...,
 *                                                and its schedule's trace beside it: g.1.trace, ...
 *     explore_litmus --graph g.dot --graph-width 340 MP.litmus   laid out for a phone (points)
 *     explore_litmus --graph g.svg MP.litmus     the same graphs in SVG, drawn by the explorer itself
 *                                                (graph_svg.c: no Graphviz; the course's playground)
 *     explore_litmus --check-reduction MP.litmus  and every interleaving's executions against the
 *                                                reduced search's (the reduction's oracle; =sleep:
 *                                                sleep sets alone's, for a test too big for every interleaving)
 *     explore_litmus MP.litmus --replay 1.0/1    one schedule again, with its trace (the id a
 *                                                failure or --trace printed)
 *     explore_litmus --axioms MP.litmus          and ask RC11's four axioms about every execution met
 *                                                (consistency.c; --check does too): the model, which is
 *                                                operational, and the axioms must agree
 *     explore_litmus --candidates --graph g.dot MP.litmus   then the candidate search: for the final
 *                                                states the condition names that RC11 forbids, the
 *                                                execution that would make one, and the cycle that
 *                                                forbids it: "Forbidden MP ... | coherence: ...", drawn
 *                                                in g.forbidden.dot, its trace in g.forbidden.trace
 *     explore_litmus --parse --json r.json MP.litmus   read the tests and run nothing: each one's
 *                                                condition's equalities and its stated states, the
 *                                                condition judged on each (for programs that would
 *                                                otherwise evaluate it again)
 *     explore_litmus --json r.json MP.litmus     each result as JSON too, in r.json: the states with their
 *                                                values and counts, herd's verdict, the race, the graphs'
 *                                                files, the forbidden candidate
 *     explore_litmus --model c11 --check RS+po.litmus   under C11's release sequences (N1570), not
 *                                                RC11's: the explorer reads LOCKSTEP_EXPLORE_MODEL
 *
 * Each test is one explorer scenario (explore.h): a scenario thread per
 * litmus thread, running the interpreter (exec.c); after every schedule,
 * check() adds the final state to the set (outcome.c). The search is
 * exhaustive: every schedule and every store a load may read, with no bound.
 *
 * Every file is read and checked before any runs: a test the explorer
 * cannot run exactly is refused with its line and the reason, exit status 2,
 * and nothing is run. Exit status: 0 done (with --check: every set is the
 * stated one; with --check-reduction: the reduced search met every
 * execution), 1 a set differs from the stated one or the reduced search
 * missed an execution, 2 refused or bad usage.
 */
#include "litmus.h"
#include "outcome.h"

#include "explore.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What the explorer's library needs from a scenario source (explore.h). */
const char *const explore_component = "litmus";
const int explore_step = 1;
const explore_scenario explore_scenarios[1];
const size_t explore_nscenarios = 0;

bool explore_decode(const char *field, const volatile void *obj, uintptr_t value, char *buf, size_t size)
{
    (void)field, (void)obj, (void)value, (void)buf, (void)size;
    return false;
}

_Static_assert(LITMUS_MAX_THREADS <= EXPLORE_MAX_THREADS, "a litmus thread is a scenario thread");

/* ---- the test being run: one at a time ------------------------------------------------- */

typedef struct run {
    const litmus_test *t;
    litmus_memory memory;
    outcome_set set;
    bool trace;
    explore_options options; /* --model, --check-reduction, --replay; spurious failures on */
    const char *graph; /* --graph FILE, or NULL: FILE.N.dot for the N-th state reached */
    bool axioms;       /* --check: every execution met is asked of RC11's axioms too (consistency.c) */
    bool candidates;   /* --candidates: after the search, the candidate search for the forbidden states */
    bool in_candidates; /* the candidate search is running: check() looks for a forbidden state */
    explore_verdict forbidden;  /* the candidate drawn: the shortest cycle found so far; n 0: none */
    char forbidden_state[1024];
    json *json;        /* --json FILE: each test's result as JSON too; NULL: none */
    /* With --json: the execution that first reached each state, in the
     * order reached (its trace and graph as JSON, execution_json), and the
     * forbidden candidate's. */
    char **executions;
    int nexecutions;
    char *forbidden_execution;
} run;

/* Each scenario function gets the run it works on as its context (main's). */

/* Litmus thread Pn is scenario thread n. */
static void thread(void *ctx)
{
    run *r = ctx;
    litmus_run_thread(r->t, &r->memory, explore_self());
}

static void begin(void *ctx)
{
    run *r = ctx;
    if (r->in_candidates)
        return; /* the states found stay: they are what the candidates are not */
    /* Before the search's one round (.exhaustive): its schedules are counted afresh. */
    for (int i = 0; i < r->set.nstates; ++i)
        r->set.schedules[i] = r->set.executions[i] = 0;
}

static void setup(void *ctx)
{
    run *r = ctx;
    litmus_memory_setup(r->t, &r->memory);
}

/* "g.dot" -> "g.3.dot"; with another extension ext, "g.3.ext" */
static void graph_path_as(const char *path, int n, const char *ext, char *buf, size_t size)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        dot = path + strlen(path);
    snprintf(buf, size, "%.*s.%d%s", (int)(dot - path), path, n, ext ? ext : dot);
}

static void graph_path(const char *path, int n, char *buf, size_t size) { graph_path_as(path, n, NULL, buf, size); }

/* Beside the graph g.3.dot, its schedule's trace, g.3.trace, as --trace
 * prints it: a page shows the two together (a stepper walks the trace
 * and lights the graph's boxes, which carry their trace lines). */
static void write_trace(const char *graph, int n)
{
    char path[1024];
    graph_path_as(graph, n, ".trace", path, sizeof path);
    FILE *f = fopen(path, "w");
    if (!f) {
        printf("explore_litmus: cannot write %s\n", path);
        return;
    }
    explore_trace_write(f);
    fclose(f);
}

/* The schedule that just ran as --json shows it: {"trace": ..., "graph":
 * ...} (v: a candidate's cycle, drawn in its graph; NULL: none), in a
 * string of its own, malloc'd; NULL if out of memory. */
static char *execution_json(const explore_verdict *v)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    json j;
    json_begin(&j, f);
    json_object(&j);
    json_key(&j, "trace");
    explore_trace_json(&j);
    json_key(&j, "graph");
    explore_graph_json(&j, v);
    json_end_object(&j);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Keeps the execution that first reached state index (--json). */
static void keep_execution(run *r, int index)
{
    if (index >= r->nexecutions) {
        char **more = realloc(r->executions, (size_t)(index + 1) * sizeof *more);
        if (!more)
            explore_fail("litmus", "no memory to keep the execution of state %d (--json)", index + 1);
        for (int i = r->nexecutions; i <= index; ++i)
            more[i] = NULL;
        r->executions = more;
        r->nexecutions = index + 1;
    }
    free(r->executions[index]);
    r->executions[index] = execution_json(NULL);
    if (!r->executions[index])
        explore_fail("litmus", "no memory to write the execution of state %d (--json)", index + 1);
}

/* The executions kept for the last test, let go. */
static void forget_executions(run *r)
{
    for (int i = 0; i < r->nexecutions; ++i)
        free(r->executions[i]);
    free(r->executions);
    free(r->forbidden_execution);
    r->executions = NULL;
    r->nexecutions = 0;
    r->forbidden_execution = NULL;
}

static void first_reached(run *r, int index, const int *values)
{
    char state[1024];
    outcome_format(r->t, values, state, sizeof state);
    if (r->trace) {
        char id[512];
        explore_schedule_id(id, sizeof id);
        printf("explore_litmus: %s: %s first reached by schedule %s (--replay %s):\n", r->t->name, state, id,
               id);
        explore_trace_print();
        printf("\n");
    }
    if (r->json)
        keep_execution(r, index);
    if (r->graph) {
        char path[1024];
        graph_path(r->graph, index + 1, path, sizeof path);
        explore_write_graph(path);
        write_trace(r->graph, index + 1);
        printf("explore_litmus: %s: %s: execution graph in %s\n", r->t->name, state, path);
    }
}

/* "g.dot" -> "g.forbidden.dot" (ext NULL: the graph's own, .dot or .svg;
 * ".dot" when it has none) or "g.forbidden.trace" (ext ".trace") */
static void forbidden_path(const char *path, const char *ext, char *buf, size_t size)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        dot = path + strlen(path);
    snprintf(buf, size, "%.*s.forbidden%s", (int)(dot - path), path, ext ? ext : *dot ? dot : ".dot");
}

static bool reached(const outcome_set *set, int n, const int *values)
{
    for (int i = 0; i < set->nstates; ++i)
        if (memcmp(set->values[i], values, (size_t)n * sizeof values[0]) == 0)
            return true;
    return false;
}

/* In the candidate search: a final state the condition names (where an
 * exists holds, where a forall fails) that the search never reached is
 * one RC11 forbids, so its execution must break an axiom. The one kept
 * (drawn as it is met) puts the fewest stores out of their hb order, then
 * has the shortest cycle: the candidate closest to a real execution. An execution with such
 * a state that breaks none means the explorer and the axioms disagree: a
 * bug of one of them, and the run fails. */
static void candidate(run *r, const int *values)
{
    const litmus_test *t = r->t;
    bool named = t->condition && outcome_holds(t, t->condition, values) == (t->quantifier != FORALL);
    if (!named || reached(&r->set, t->nshown, values))
        return;
    char state[1024];
    outcome_format(t, values, state, sizeof state);
    explore_verdict v;
    if (explore_consistent(&v))
        explore_fail("explorer", "%s: the final state %s was never reached, yet this execution of it meets RC11's "
                                 "four axioms (consistency.c): the model and the axioms disagree", t->name, state);
    const explore_verdict *best = &r->forbidden; /* least disorder, then the shortest cycle */
    if (best->n && (v.disorder > best->disorder || (v.disorder == best->disorder && v.n >= best->n)))
        return;
    r->forbidden = v;
    snprintf(r->forbidden_state, sizeof r->forbidden_state, "%s", state);
    if (r->json) {
        free(r->forbidden_execution);
        r->forbidden_execution = execution_json(&r->forbidden);
    }
    if (r->graph) {
        char path[1024];
        forbidden_path(r->graph, NULL, path, sizeof path);
        explore_write_candidate(path, &r->forbidden);
        forbidden_path(r->graph, ".trace", path, sizeof path);
        FILE *f = fopen(path, "w");
        if (f) {
            explore_trace_write(f);
            fclose(f);
        }
    }
}

static void check(void *ctx)
{
    run *r = ctx;
    const litmus_test *t = r->t;
    int values[LITMUS_MAX_OBSERVED];
    for (int i = 0; i < t->nshown; ++i)
        values[i] = litmus_final_value(t, &r->memory, t->shown[i]);
    /* the axioms read the locations' modification orders: before the free forgets them */
    explore_verdict v;
    if (r->in_candidates)
        candidate(r, values);
    else if (r->axioms && !explore_consistent(&v)) /* the operational model and the axiomatic one agree */
        explore_fail("explorer", "%s: an execution RC11 forbids: %s", t->name, v.says);
    litmus_memory_free(t, &r->memory);
    if (r->in_candidates)
        return;
    bool added;
    int i = outcome_add(&r->set, t->nshown, values, &added);
    if (i < 0)
        explore_fail("litmus", "no memory for another final state (%d so far)", r->set.nstates);
    ++r->set.schedules[i];
    r->set.executions[i] += explore_execution_is_new(); /* herd counts executions */
    if (added)
        first_reached(r, i, values);
}

/* A data race is herd's undefined behaviour: flagged, and the search goes on. */
static void on_race(void *ctx, const char *what)
{
    run *r = ctx;
    if (r->in_candidates)
        return; /* a candidate's race is no outcome of the test */
    if (!r->set.race)
        snprintf(r->set.race_report, sizeof r->set.race_report, "%s", what);
    r->set.race = true;
}

/* ---- what the model can run --------------------------------------------------------------- */

/* Refuses what the explorer's model does not do yet, rather than give a set
 * that means nothing. EXPLORE_MODEL_FENCES: explore.h defines it once the
 * model has C11's fences (issue 24). */
static bool runnable(const litmus_test *t)
{
#ifndef EXPLORE_MODEL_FENCES
    if (t->fence_line) {
        fprintf(stderr, "%s:%d: atomic_thread_fence: the explorer's model has no fences yet\n", t->path,
                t->fence_line);
        return false;
    }
#endif
    (void)t;
    return true;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --candidates: the candidate search, once the states RC11 allows are
 * known; prints the forbidden state drawn and why RC11 forbids it:
 *     Forbidden MP+rel+acq g.forbidden.dot 1:r0=1; 1:r1=0; | coherence: hb ; fr is a cycle (RC11: ...)
 * or, when the condition names no state outside the allowed ones,
 *     Forbidden MP+rlx none */
static void forbidden(run *r, const explore_scenario *s)
{
    /* An exists the search already witnessed asks about an allowed outcome:
     * nothing to explain, and the candidate search, which reads every store
     * and places every store anywhere, can cost far more than the search
     * (CoRR+8W's eight stores). */
    const litmus_test *t = r->t;
    r->forbidden = (explore_verdict){0};
    for (int i = 0; t->condition && t->quantifier == EXISTS && i < r->set.nstates; ++i)
        if (outcome_holds(t, t->condition, r->set.values[i])) {
            printf("Forbidden %s none\n", t->name);
            return;
        }
    explore_options o = r->options;
    o.candidates = true;
    r->forbidden = (explore_verdict){0};
    r->in_candidates = true;
    explore_run(s, &o, r);
    r->in_candidates = false;
    if (!r->forbidden.n) {
        printf("Forbidden %s none\n", r->t->name);
        return;
    }
    char path[1024] = "-";
    if (r->graph)
        forbidden_path(r->graph, NULL, path, sizeof path);
    printf("Forbidden %s %s %s | %s\n", r->t->name, path, r->forbidden_state, r->forbidden.says);
}

static void string_or_null(json *j, const char *key, const char *s)
{
    json_key(j, key);
    json_string(j, s[0] ? s : NULL);
}

/* --parse: the file's parts as written (litmus_source), for the tools
 * that show them: the quoted line, the init block, each thread's code, the
 * condition's quantifier and proposition, the expect lines (RC11's, then
 * C11's beyond them) and the comment lines compare.py reads. */
static void source_json(json *j, const litmus_test *t)
{
    const litmus_source *src = &t->source;
    string_or_null(j, "about", src->about);
    string_or_null(j, "init", src->init);
    json_key(j, "threads");
    json_array(j);
    for (int i = 0; i < t->nthreads; ++i) {
        char name[16];
        snprintf(name, sizeof name, "P%d", i);
        json_object(j);
        json_key(j, "name");
        json_string(j, name);
        json_key(j, "code");
        json_string(j, src->code[i] ? src->code[i] : "");
        json_end_object(j);
    }
    json_end_array(j);
    string_or_null(j, "quantifier", src->quantifier);
    string_or_null(j, "proposition", src->proposition);
    for (int c11 = 0; c11 <= 1; ++c11) {
        json_key(j, c11 ? "expect_c11" : "expect");
        json_array(j);
        for (int i = 0; i < t->nexpected; ++i)
            if (t->expected_c11[i] == (bool)c11)
                json_string(j, t->expected[i]);
        json_end_array(j);
    }
    string_or_null(j, "expect_counts", src->expect_counts);
    string_or_null(j, "herd_differs", src->herd_differs);
    string_or_null(j, "herd_counts_differ", src->herd_counts_differ);
    string_or_null(j, "herd_skip", src->herd_skip);
}

/* The test's result as a member of --json's "tests" array: herd's block
 * (outcome.c), each state's graph file, the forbidden candidate (with
 * --candidates) and whether the set is the stated one (with --check). */
static void write_json(run *r, const int *map, double seconds, int stated)
{
    json *j = r->json;
    const litmus_test *t = r->t;
    char (*paths)[1024] = r->graph ? calloc((size_t)r->set.nstates + 1, sizeof *paths) : NULL;
    const char **graphs = r->graph ? calloc((size_t)r->set.nstates + 1, sizeof *graphs) : NULL;
    for (int i = 0; paths && graphs && i < r->set.nstates; ++i) {
        graph_path(r->graph, map[i] + 1, paths[i], sizeof paths[i]);
        graphs[i] = paths[i];
    }
    /* each state's execution, in the states' order (sorted, as printed) */
    const char **executions = calloc((size_t)r->set.nstates + 1, sizeof *executions);
    if (!executions)
        explore_fail("litmus", "no memory to write %s's JSON", t->name);
    for (int i = 0; i < r->set.nstates; ++i)
        executions[i] = map[i] < r->nexecutions ? r->executions[map[i]] : NULL;
    json_object(j);
    json_key(j, "file");
    json_string(j, t->path);
    outcome_json(j, t, &r->set, paths && graphs ? graphs : NULL, executions, seconds);
    outcome_json_stated(j, t);
    json_key(j, "forbidden");
    if (r->candidates && r->forbidden.n) {
        char path[1024];
        json_object(j);
        json_key(j, "state");
        json_string(j, r->forbidden_state);
        json_key(j, "graph");
        if (r->graph)
            forbidden_path(r->graph, NULL, path, sizeof path);
        json_string(j, r->graph ? path : NULL);
        json_key(j, "why");
        json_string(j, r->forbidden.says);
        json_key(j, "execution");
        if (r->forbidden_execution)
            json_raw(j, r->forbidden_execution);
        else
            json_null(j);
        json_end_object(j);
    } else {
        json_string(j, NULL);
    }
    json_key(j, "stated");
    if (stated < 0)
        json_string(j, NULL);
    else
        json_bool(j, stated);
    json_end_object(j);
    free(paths);
    free(graphs);
    free(executions);
}

/* Runs one test; false if its set is not the stated one (with --check). */
static bool run_test(run *r, const litmus_test *t, bool check_expected)
{
    static const char *const names[] = {"P0", "P1", "P2", "P3"};
    /* Named by its file: the explorer's replay line then reads
     * "explore_litmus tests/MP.litmus --replay ID", which works. */
    explore_scenario s = {.name = t->path, .min_step = 1, .about = t->name, .nthreads = t->nthreads,
                          .threads = {thread, thread, thread, thread}, .begin = begin, .setup = setup,
                          .check = check, .exhaustive = true, .on_race = on_race};
    for (int i = 0; i < t->nthreads; ++i)
        s.thread_names[i] = names[i];
    r->t = t;
    r->set.nstates = 0;
    r->set.race = false;
    double start = now();
    if (r->options.replay) { /* one schedule: the explorer prints its trace */
        explore_run(&s, &r->options, r);
        char state[1024] = "no final state";
        if (r->set.nstates > 0)
            outcome_format(t, r->set.values[0], state, sizeof state);
        printf("explore_litmus: %s: this schedule ends in %s\n", t->name, state);
        return true;
    }
    /* .exhaustive: one round with no bound, every schedule once (run.c). */
    explore_run(&s, &r->options, r);
    if (!explore_exhaustive()) {
        fprintf(stderr, "%s: the search was not exhaustive (a bound cut it short): "
                        "no result\n", t->path);
        exit(2);
    }
    int *map = malloc((size_t)r->set.nstates * sizeof *map + 1);
    if (!map || !outcome_sort(t, &r->set, map)) {
        fprintf(stderr, "%s: no memory to sort its %d final states: no result\n", t->path, r->set.nstates);
        exit(2);
    }
    double seconds = now() - start;
    outcome_print(t, &r->set, seconds);
    if (r->set.race)
        printf("explore_litmus: %s: undefined behaviour, the first data race found: %s\n", t->name,
               r->set.race_report);
    if (r->graph)
        for (int i = 0; i < r->set.nstates; ++i) {
            char path[1024];
            graph_path(r->graph, map[i] + 1, path, sizeof path);
            printf("Graph %s %d %s\n", t->name, i + 1, path);
        }
    if (r->candidates)
        forbidden(r, &s);
    bool stated = !check_expected || outcome_check(t, &r->set, r->options.c11);
    if (r->json)
        write_json(r, map, seconds, check_expected ? stated : -1);
    free(map);
    if (r->options.check_reduction) { /* last: the other round's states must not change what was printed */
        r->trace = false;
        r->graph = NULL;
        stated &= explore_compare_search(&s, &r->options, r) == 0;
    }
    return stated;
}

static int usage(const char *program)
{
    fprintf(stderr, "usage: %s [--model rc11|c11] [--check] [--check-reduction[=sleep]] [--axioms] [--trace] [--graph FILE.dot|FILE.svg [--graph-width PT]] [--candidates] [--json FILE [--parse]]\n"
                    "       FILE.litmus...\n"
                    "       %s FILE.litmus --replay ID\n", program, program);
    return 2;
}

/* The options, one table (getopt_long); none has a short form. Those the
 * scenario programs take too are the explorer's (EXPLORE_OPT_..., read by
 * explore_take_option). */
enum { OPT_CHECK = 256, OPT_AXIOMS, OPT_CANDIDATES, OPT_TRACE, OPT_GRAPH, OPT_JSON, OPT_PARSE };

static const struct option g_options[] = {
    {"check", no_argument, NULL, OPT_CHECK},
    {"axioms", no_argument, NULL, OPT_AXIOMS},
    {"candidates", no_argument, NULL, OPT_CANDIDATES},
    {"check-reduction", optional_argument, NULL, EXPLORE_OPT_CHECK_REDUCTION},
    {"trace", no_argument, NULL, OPT_TRACE},
    {"graph", required_argument, NULL, OPT_GRAPH},
    {"graph-width", required_argument, NULL, EXPLORE_OPT_GRAPH_WIDTH},
    {"replay", required_argument, NULL, EXPLORE_OPT_REPLAY},
    {"model", required_argument, NULL, EXPLORE_OPT_MODEL},
    {"json", required_argument, NULL, OPT_JSON},
    {"parse", no_argument, NULL, OPT_PARSE},
    {0},
};

/* The options into r (and *check_expected); the files are left from
 * optind on. Returns -1 to go on, else the exit status (2: a bad
 * argument, said on stderr). */
static int parse_options(int argc, char **argv, run *r, bool *check_expected, const char **json_path, bool *parse_only)
{
    const char *program = argv[0];
    char why[256];
    int c;
    while ((c = getopt_long(argc, argv, "", g_options, NULL)) != -1) {
        switch (c) {
        case OPT_CHECK:
            *check_expected = r->axioms = true;
            break;
        case OPT_AXIOMS:
            r->axioms = true;
            break;
        case OPT_CANDIDATES:
            r->candidates = true;
            break;
        case OPT_TRACE:
            r->trace = true;
            break;
        case OPT_GRAPH:
            r->graph = optarg;
            break;
        case OPT_JSON:
            *json_path = optarg;
            break;
        case OPT_PARSE:
            *parse_only = true;
            break;
        case EXPLORE_OPT_MODEL: case EXPLORE_OPT_CHECK_REDUCTION: case EXPLORE_OPT_GRAPH_WIDTH: case EXPLORE_OPT_REPLAY:
            if (!explore_take_option(c, optarg, &r->options, why, sizeof why)) {
                fprintf(stderr, "%s: %s\n", program, why);
                return usage(program);
            }
            break;
        default: /* getopt_long said what it did not know */
            return usage(program);
        }
    }
    return -1;
}

/* The tests read so far, freed: every way out of main frees them, so that a
 * leak checker (the asan preset builds this program with one) finds
 * nothing, a refusal included. Returns status. */
static int done(litmus_test *tests, int ntests, int status)
{
    for (int i = 0; i < ntests; ++i)
        litmus_free(&tests[i]);
    free(tests);
    return status;
}

int main(int argc, char **argv)
{
    /* Every file's test, read before any runs; and the run each works on,
     * its scenario's context. */
    litmus_test *tests = calloc((size_t)argc, sizeof *tests);
    run r = {0};
    int ntests = 0;
    if (!tests) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 2;
    }
    bool check_expected = false, refused = false;
    char why[1024];
    /* A weak compare-exchange may fail spuriously, as in herd7, unless
     * LOCKSTEP_EXPLORE_SPURIOUS says otherwise. */
    if (!explore_options_init(&r.options, argv[0], true, why, sizeof why)) {
        fprintf(stderr, "%s: %s\n", argv[0], why);
        return done(tests, 0, 2);
    }
    r.options.bound_is_hard = false; /* .exhaustive: one round, no bound, whatever the environment says */
    const char *json_path = NULL;
    bool parse_only = false;
    int status = parse_options(argc, argv, &r, &check_expected, &json_path, &parse_only);
    if (status >= 0)
        return done(tests, 0, status);
    for (int i = optind; i < argc; ++i) {
        if (!litmus_parse(argv[i], &tests[ntests]) || !runnable(&tests[ntests++]))
            refused = true;
        else
            litmus_sites(&tests[ntests - 1]);
    }
    if (refused)
        return done(tests, ntests, 2);
    if (ntests == 0 || (r.options.replay && ntests != 1) || (parse_only && (!json_path || r.options.replay)))
        return done(tests, ntests, usage(argv[0]));
    FILE *json_file = NULL;
    json j;
    if (json_path && !r.options.replay) {
        json_file = fopen(json_path, "w");
        if (!json_file) {
            perror(json_path);
            return done(tests, ntests, 2);
        }
        json_begin(&j, json_file);
        json_object(&j);
        json_key(&j, "program");
        json_string(&j, "explore_litmus");
        json_key(&j, "model");
        json_string(&j, r.options.c11 ? "c11" : "rc11");
        json_key(&j, "tests");
        json_array(&j);
        r.json = &j;
    }
    explore_install_crash_handlers();
    bool all_stated = true;
    for (int i = 0; i < ntests && parse_only; ++i) { /* --parse: each test as read, its stated states judged */
        json_object(&j);
        json_key(&j, "file");
        json_string(&j, tests[i].path);
        json_key(&j, "test");
        json_string(&j, tests[i].name);
        source_json(&j, &tests[i]);
        outcome_json_stated(&j, &tests[i]);
        json_end_object(&j);
    }
    for (int i = 0; i < ntests && !parse_only; ++i) {
        all_stated &= run_test(&r, &tests[i], check_expected);
        forget_executions(&r);
    }
    if (json_file) {
        json_end_array(&j);
        json_end_object(&j);
        fputc('\n', json_file);
        fclose(json_file);
    }
    outcome_set_free(&r.set);
    return done(tests, ntests, all_stated ? 0 : 1);
}
