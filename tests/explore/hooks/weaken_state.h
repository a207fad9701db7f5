/* weaken.c's part of a schedule's world (run/world.h): its types, declared
 * here so that hooks/part.h can hold the part by value; only weaken.c reads it. */
#ifndef LOCKSTEP_EXPLORE_WEAKEN_STATE_H
#define LOCKSTEP_EXPLORE_WEAKEN_STATE_H

#include "model.h"

typedef struct weakening {
    char file[64];
    int line;
    int order;
} weakening;

/* The weakenings asked for, its part of the world (run/world.h). */
typedef struct weaken_state {
    weakening weaken[8];
    int nweaken;
} weaken_state;

#endif /* LOCKSTEP_EXPLORE_WEAKEN_STATE_H */
