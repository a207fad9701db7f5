/* alloc.c's part of a schedule's world (run/world.h): its types, declared
 * here so that memory/part.h can hold the part by value; only alloc.c reads it. */
#ifndef LOCKSTEP_EXPLORE_ALLOC_STATE_H
#define LOCKSTEP_EXPLORE_ALLOC_STATE_H

#include "block.h"

/* The allocator's guard region, its part of the world (run/world.h). */
typedef struct alloc_state {
    char *guard; /* PROT_NONE: the poison points into its middle */
} alloc_state;

#endif /* LOCKSTEP_EXPLORE_ALLOC_STATE_H */
