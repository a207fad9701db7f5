/*
 * task_sequencer: one Check suite, compiled for every step that has the
 * sequencer (LOCKSTEP_STEP >= 6; earlier steps report the suite skipped).
 * Its cases live in tests/unit/sequencer/, one file per topic:
 *
 *   order.c           queue order, results and errors, the maker's thread
 *   alloc_failure.c   erratum 6: an allocation failure in the queue call
 *   lifetime.c        a task released early, a sequencer destroyed with work pending
 *   bounded_stack.c   erratum 5: a backlog and a chain of awaiters in bounded stack
 *   blocking_maker.c  a maker must not block on a task it queued
 *   threads.c         several threads queue at once
 *   destroy_race.c    destroy against the last completion on another thread
 *
 * Queued operations (sequencer_bodies.h) log the order their bodies run in,
 * count overlaps, and record when and where their maker ran. The runner's
 * fixture adds to every case: it ends with no live allocation.
 *
 * Failure messages name the README section that explains the rule:
 * steps/06-sequencer/README.md.
 */
#include "sequencer/sequencer_cases.h"

int main(int argc, char **argv)
{
    const lockstep_case *const topics[] = {
        sequencer_order_cases,         sequencer_alloc_failure_cases, sequencer_lifetime_cases,
        sequencer_bounded_stack_cases, sequencer_blocking_maker_cases, sequencer_threads_cases,
        sequencer_destroy_race_cases,
    };
    return lockstep_check_topics("sequencer", LOCKSTEP_STEP, topics, sizeof topics / sizeof topics[0], argc, argv);
}
