/* datarace.c's part of a schedule's world (run/world.h): its types, declared
 * here so that model/part.h can hold the part by value; only datarace.c reads it. */
#ifndef LOCKSTEP_EXPLORE_DATARACE_STATE_H
#define LOCKSTEP_EXPLORE_DATARACE_STATE_H

#include "model.h"

typedef struct shadow_access {
    uint32_t epoch; /* 0: none */
    const void *pc; /* a plain access: the return address into the instrumented code */
    const explore_site *site; /* or the site the program named it by (a litmus file's *x): no pc to look up */
    int event;      /* otherwise: its event (an atomic operation, atomic_init, a free); -1 plain */
    int after;      /* how many trace lines there were then */
    bool wrote;     /* an atomic access that stored */
} shadow_access;

typedef struct shadow {
    uintptr_t addr;
    uint32_t generation; /* the schedule it belongs to: older entries are empty */
    int8_t writer;
    uint8_t readers; /* which read[] hold an access, a bit per thread (the others are stale) */
    uint8_t atomics; /* which atomic[] do */
    shadow_access write;
    shadow_access read[THREADS];
    shadow_access atomic[THREADS];
} shadow;

#define SHADOW_BITS 16
#define SHADOW_SIZE (1u << SHADOW_BITS)
/* The schedule's race shadow, its part of the world (run/world.h). */
typedef struct datarace_state {
    shadow shadow[SHADOW_SIZE];
    uint32_t generation; /* the schedule's: older entries are empty */
    unsigned used;
    void (*on_race)(void *ctx, const char *what);
    void *race_ctx; /* on_race's argument: the scenario's context */
    bool reported; /* this access has been reported already (on_race: the schedule goes on) */
    int quiet;     /* the running thread's: the scenario observing (thread.c carries it across a switch) */
} datarace_state;

#endif /* LOCKSTEP_EXPLORE_DATARACE_STATE_H */
