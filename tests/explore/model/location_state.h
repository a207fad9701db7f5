/* location.c's part of a schedule's world (world.h): its types, declared
 * here so that world.h can hold the part by value; only location.c reads it. */
#ifndef LOCKSTEP_EXPLORE_LOCATION_STATE_H
#define LOCKSTEP_EXPLORE_LOCATION_STATE_H

#include "model.h"

#define HISTORY 8 /* stores kept per location, as loom's MAX_ATOMIC_HISTORY */
#define MAX_LOCATIONS 64

typedef struct store {
    uintptr_t value;
    int thread;                   /* who stored it */
    bool rmw;                     /* a read-modify-write: it read the store just before it */
    vclock rs[THREADS];           /* rs[v]: clock of v's release whose sequence holds this store */
    uint32_t first_seen[THREADS]; /* first_seen[v]: v's epoch when it first read or wrote it; 0 never */
    int event;                    /* its event (atomic_init's for an initial value); -1: none seen */
} store;

typedef struct location {
    const volatile void *addr;
    size_t size;
    int n;
    bool dropped;            /* stores older than stores[0] were dropped */
    vclock released[THREADS]; /* rc11: released[t], the clock of t's last release store here */
    store stores[HISTORY];   /* modification order: stores[n - 1] is the newest */
} location;

/* The schedule's atomic locations, its part of the world (world.h). */
typedef struct location_state {
    location locs[MAX_LOCATIONS];
    int nlocs;
    bool truncated;
    bool c11; /* --model c11: N1570's contiguous release sequences (the search's options) */
    bool candidates; /* the candidate search: coherence and atomicity unchecked (the search's options) */
} location_state;

#endif /* LOCKSTEP_EXPLORE_LOCATION_STATE_H */
