/* fail.c's part of a schedule's world (run/world.h): its types, declared
 * here so that core/part.h can hold the part by value; only fail.c reads it. */
#ifndef LOCKSTEP_EXPLORE_FAIL_STATE_H
#define LOCKSTEP_EXPLORE_FAIL_STATE_H

#include "model.h"

/* The schedule's failure, its part of the world (run/world.h). */
typedef struct fail_state {
    evidence evidence;
    bool failed;
    char kind[64];
    char message[2048];
    jmp_buf *unwind; /* where the running thread unwinds to (thread.c saves it across a switch) */
} fail_state;

#endif /* LOCKSTEP_EXPLORE_FAIL_STATE_H */
