/* fence.c's part of a schedule's world (run/world.h): its types, declared
 * here so that model/part.h can hold the part by value; only fence.c reads it. */
#ifndef LOCKSTEP_EXPLORE_FENCE_STATE_H
#define LOCKSTEP_EXPLORE_FENCE_STATE_H

#include "model.h"

/* The schedule's fence clocks, its part of the world (run/world.h). */
typedef struct fence_state {
    vclock released[THREADS]; /* released[t]: t's clock at its last release fence */
    vclock pending[THREADS];  /* pending[t]: the release heads t's loads read, for an acquire fence */
} fence_state;

#endif /* LOCKSTEP_EXPLORE_FENCE_STATE_H */
