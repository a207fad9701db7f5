/*
 * One run of a scenario, and the rounds of the search.
 *
 * A run resets everything a schedule leaves behind (the events, the
 * clocks, the locations, the blocks, the race shadow), runs the setup on
 * the main thread, the scenario's threads one at a time (thread.c) and the
 * checks, each in the order path.c decides.
 *
 * The search, by default: first two rounds of CHESS's iterative bounding,
 * every schedule with at most 0 preemptions and stale reads, then at most
 * 1, so that a failure that needs few is found first and reads as a short
 * story; then one round with no bound, partial-order reduced (path.c's
 * sleep sets over step.c's dependence): every execution, each explored by
 * at least one schedule, most by exactly one. A scenario marked .exhaustive
 * (a litmus test) runs the reduced round alone.
 *
 * With --preemptions P (or the scenario's .preemptions), the rounds of
 * increasing bound as before, unreduced, to P or until a round skips
 * nothing ("exhaustive"): a failure's shortest story.
 *
 * explore_compare_search, after a reduced search, is the reduction's
 * oracle: one more round with no bound, every interleaving (or sleep sets
 * alone, for tests too big for that), and the two rounds' sets of
 * executions (execution.c) compared, not only their sizes.
 * An execution the reduced search never met is printed with the schedule
 * that makes it, to replay.
 */
#include "run/world.h"

#include <stdio.h>
#include <stdlib.h>

/* Bounds of the rounds run before the reduced search: a failure they find
 * is a schedule with as few preemptions as possible. */
#define SHORT_ROUNDS 2
#define NO_BOUND (1 << 20) /* more than any schedule can cost */

/* This file's part of the schedule's world, through its layer's (run/part.h). */
static inline run_state *st(void) { return &run_now()->run; }

long run_schedules(void) { return st()->schedules; }
long explore_executions(void) { return execution_count(); }
bool explore_replaying(void) { return path_replaying(); }
int explore_bound(void) { return path_bound(); }
bool explore_exhaustive(void) { return !path_pruned(); }
void explore_schedule_id(char *buf, size_t size) { path_id(buf, size); }


/* An execution of the unreduced round that the reduced round never met:
 * the first few are printed with the schedule that makes it. */
static void missed(const explore_scenario *s)
{
    if (st()->missed++ >= 5)
        return;
    char id[2048];
    path_id(id, sizeof id);
    printf("explore: an execution the reduced search did not meet: schedule %s (%s %s --replay %s)\n", id,
           st()->program ? st()->program : "explore", s->name, id);
}

/* One schedule. A failure unwinds to here (fail.c), on the main thread,
 * from the setup, the checks or the scenario threads (thread.c hands it
 * on): printed, and the process ends. */
static void run_once(const explore_scenario *s)
{
    jmp_buf unwind;
    if (setjmp(unwind))
        report_failure(s, st()->program, st()->schedules);
    fail_catch(&unwind);
    ++st()->schedules;
    /* The world's per-schedule parts (run/world.h), all reset here, in an
     * order that must stay. The path and the set of executions are the
     * round's (round_of), the options the search's (explore_run): kept. */
    alloc_reset();
    events_reset();
    names_reset();
    fail_reset();
    names_set_threads(s);
    clock_reset();
    fence_reset();
    psc_reset();
    location_reset();
    datarace_reset(s->on_race, st()->context);
    path_begin_schedule();
    execution_begin_schedule();
    thread_setup(s, st()->context);
    s->setup(st()->context);
    point_reset(); /* the setup's own resumes do not count */
    thread_run_all();
    s->check(st()->context);
    if (explore_execution_is_new() && st()->comparing && !execution_in_reference()) /* counted, if not already */
        missed(s);
    alloc_check_leaks();
    thread_end_schedule();
    fail_catch(NULL);
}

static long round_of(const explore_scenario *s, int bound, enum search_kind kind, bool free_mo)
{
    path_begin_round(bound, kind, free_mo);
    execution_reset();
    if (s->begin)
        s->begin(st()->context);
    long schedules = 0;
    do {
        run_once(s);
        ++schedules;
    } while (path_next());
    return schedules;
}

/* The scenario's invariants over the whole search: a failure is printed
 * after the last schedule's trace. */
static void summarize(const explore_scenario *s)
{
    jmp_buf unwind;
    if (setjmp(unwind))
        report_failure(s, st()->program, st()->schedules);
    fail_catch(&unwind);
    s->summary(st()->context);
    fail_catch(NULL);
}

long explore_run(const explore_scenario *s, const explore_options *o, void *ctx)
{
    world_initial(); /* the one world; the search's settings below are set once */
    st()->program = o->program;
    st()->context = ctx;
    location_set_model(o->c11);
    location_set_candidates(o->candidates);
    point_set_spurious(o->spurious);
    point_set_spurious_wakeups(o->spurious_wakeups);
    point_set_candidates(o->candidates);
    trace_set_width(o->width);
    explore_set_graph_width(o->graph_width);
    const char *replay_id = o->replay;
    int bound = o->bound;
    if (replay_id) {
        if (!path_replay(replay_id)) {
            fprintf(stderr, "explore: '%s' is not a schedule id (threads chosen at each decision: 0.1.1.0)\n",
                    replay_id);
            exit(2);
        }
        run_once(s);
        path_replay_report();
        char id[2048];
        path_id(id, sizeof id);
        printf("explore: schedule %s of %s (passes every check):\n", id, s->name);
        trace_print();
        return 1;
    }
    long schedules;
    if (o->candidates) /* sleep sets alone, over the classic dependence: the source sets' rules (path.c)
                          are argued for consistent executions; a sleep set only for steps that commute,
                          and with every store readable, two loads do, whatever they read */
        schedules = round_of(s, NO_BOUND, SEARCH_SLEEP, false);
    else if (o->bound_is_hard) /* the rounds of increasing bound, to P, every interleaving in each */
        for (int k = 0;; ++k) {
            schedules = round_of(s, k, SEARCH_EVERY, false);
            if (!path_pruned() || k >= bound)
                break;
        }
    else {
        /* The short stories first: a failure that needs no preemption, or
         * one, is found here and printed as such. Then every execution,
         * with no bound, reduced (path.c). */
        for (int k = 0; k < SHORT_ROUNDS && !s->exhaustive; ++k)
            round_of(s, k, SEARCH_EVERY, false);
        /* On one location, more steps commute under RC11 (step.c). */
        schedules = round_of(s, NO_BOUND, SEARCH_SOURCE, !o->c11);
    }
    if (s->summary)
        summarize(s);
    return schedules;
}

long explore_compare_search(const explore_scenario *s, const explore_options *o, void *ctx)
{
    st()->context = ctx;
    bool every = o->check_reduction == EXPLORE_CHECK_EVERY;
    st()->program = o->program;
    execution_keep_as_reference();
    long reduced = execution_reference_count();
    st()->missed = 0;
    st()->comparing = true;
    /* The reference's dependence is the classic one (free_mo false: on one
     * location, steps are dependent when either writes), so that it checks
     * step.c's finer rules too. */
    long schedules = round_of(s, NO_BOUND, every ? SEARCH_EVERY : SEARCH_SLEEP, false);
    st()->comparing = false;
    long all = execution_count();
    long extra = reduced - (all - st()->missed); /* met by the reduced search alone: never, if both are right */
    printf("explore: the reduction checked: %ld execution%s with %s (%ld schedule%s), %ld with the reduced "
           "search; %ld missed, %ld met by the reduced search alone\n", all, all == 1 ? "" : "s",
           every ? "every interleaving" : "sleep sets alone", schedules, schedules == 1 ? "" : "s", reduced,
           st()->missed, extra);
    return st()->missed + (extra > 0 ? extra : -extra);
}
