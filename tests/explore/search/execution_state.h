/* execution.c's part of a schedule's world (run/world.h): its types, declared
 * here so that search/part.h can hold the part by value; only execution.c reads it. */
#ifndef LOCKSTEP_EXPLORE_EXECUTION_STATE_H
#define LOCKSTEP_EXPLORE_EXECUTION_STATE_H

#include "model.h"

/* Signatures in an open-addressing hash table (0 marks an empty slot). */
typedef struct sigset {
    uint64_t *slot;
    size_t cap, count;
} sigset;

/* A location's newest store in mo, while rebuild_mo walks the log. */
typedef struct mo_tail {
    const volatile void *obj;
    int last; /* the newest store in mo */
} mo_tail;

/* The schedule's execution and the round's set of them, its part of the world (run/world.h). */
typedef struct execution_state {
    /* An event's name: its thread and its index in that thread's steps. */
    int32_t name[MAX_EVENTS];
    int32_t mo_prev[MAX_EVENTS]; /* the store before it in mo: an event index, -1 none */
    mo_tail tails[MAX_EVENTS];   /* rebuild_mo's scratch: one per location, at most one per event */
    sigset seen;      /* this round's */
    sigset reference; /* an earlier round's, kept to compare with (execution_keep_as_reference) */
    /* Once per schedule: the first call decides, later ones repeat it. */
    bool decided, is_new;
    uint64_t sig;
} execution_state;

#endif /* LOCKSTEP_EXPLORE_EXECUTION_STATE_H */
