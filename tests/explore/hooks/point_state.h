/* point.c's part of a schedule's world (run/world.h): its types, declared
 * here so that hooks/part.h can hold the part by value; only point.c reads it. */
#ifndef LOCKSTEP_EXPLORE_POINT_STATE_H
#define LOCKSTEP_EXPLORE_POINT_STATE_H

#include "model.h"

/* What the operations keep across a schedule, its part of the world (run/world.h). */
typedef struct point_state {
    bool spurious;   /* the search's option: a weak compare-exchange may fail spuriously */
    bool spurious_wakeups; /* the search's option: pthread_cond_wait may return unsignalled (mutex.c) */
    bool candidates; /* the search's option: the candidate search, where psc refuses nothing */
    int max_nesting; /* the deepest nesting of the step's trampolines since the threads started */
    int nesting[EXPLORE_MAX_THREADS + 1]; /* each thread's (main's too) resumes inside one another, now */
} point_state;

#endif /* LOCKSTEP_EXPLORE_POINT_STATE_H */
