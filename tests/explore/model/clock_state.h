/* clock.c's part of a schedule's world (run/world.h): its types, declared
 * here so that model/part.h can hold the part by value; only clock.c reads it. */
#ifndef LOCKSTEP_EXPLORE_CLOCK_STATE_H
#define LOCKSTEP_EXPLORE_CLOCK_STATE_H

#include "model.h"

/* The mutexes' clocks: what the last unlock released. */
typedef struct mutex_clock {
    const void *m;
    vclock clock;
} mutex_clock;
/* The schedule's clocks, its part of the world (run/world.h). */
typedef struct clock_state {
    vclock clock[THREADS];
    mutex_clock mutexes[16];
    int nmutexes;
} clock_state;

#endif /* LOCKSTEP_EXPLORE_CLOCK_STATE_H */
