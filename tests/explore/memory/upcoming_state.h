/* upcoming.c's part of a schedule's world (run/world.h): its types, declared
 * here so that memory/part.h can hold the part by value; only upcoming.c reads it. */
#ifndef LOCKSTEP_EXPLORE_UPCOMING_STATE_H
#define LOCKSTEP_EXPLORE_UPCOMING_STATE_H

#include "block.h"

#define MAX_UPCOMING_NAMES 4
typedef struct upcoming {
    uint64_t countdown; /* 0: no failure planned; else the countdown reaches 0 on the failing call */
    bool fail_rest;     /* keep failing once it is reached */
    bool failing;       /* every call fails */
    const char *names[MAX_UPCOMING_NAMES];
    bool coro[MAX_UPCOMING_NAMES];
    int nnames;
} upcoming;
/* Every thread's plans, its part of the world (run/world.h). */
typedef struct upcoming_state {
    upcoming threads[THREADS];
} upcoming_state;

#endif /* LOCKSTEP_EXPLORE_UPCOMING_STATE_H */
