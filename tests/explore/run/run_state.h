/* run.c's part of a schedule's world (run/world.h): its types, declared
 * here so that run/part.h can hold the part by value; only run.c reads it. */
#ifndef LOCKSTEP_EXPLORE_RUN_STATE_H
#define LOCKSTEP_EXPLORE_RUN_STATE_H

#include "model.h"

/* The search's run, its part of the world (run/world.h). */
typedef struct run_state {
    long schedules;      /* run so far, over every round: the failure report says how many */
    const char *program; /* the options' argv[0], for the replay command */
    long missed;         /* executions of the unreduced round the reduced one did not meet */
    bool comparing;      /* this round is explore_compare_search's */
    void *context;       /* the scenario's, for its callbacks (explore_run's ctx) */
} run_state;

#endif /* LOCKSTEP_EXPLORE_RUN_STATE_H */
