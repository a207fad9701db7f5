/* block.c's part of a schedule's world (run/world.h): its types, declared
 * here so that core/part.h can hold the part by value; only block.c reads it. */
#ifndef LOCKSTEP_EXPLORE_BLOCK_STATE_H
#define LOCKSTEP_EXPLORE_BLOCK_STATE_H

#include "block.h"

/* The schedule's blocks, its part of the world (run/world.h). */
typedef struct block_state {
    block blocks[MAX_BLOCKS];
    int nblocks;
} block_state;

#endif /* LOCKSTEP_EXPLORE_BLOCK_STATE_H */
