/* location.c's part of a schedule's world (run/world.h): its types, declared
 * here so that model/part.h can hold the part by value; only location.c reads it. */
#ifndef LOCKSTEP_EXPLORE_LOCATION_STATE_H
#define LOCKSTEP_EXPLORE_LOCATION_STATE_H

#include "model.h"

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
    vclock released[THREADS]; /* rc11: released[t], the clock of t's last release store here */
    store *stores;           /* modification order: stores[n - 1] is the newest; every store stays */
    int cap;                 /* stores' room; the buffer stays with its slot from one schedule to the next */
} location;

/* One way an operation may go (location.c): the store it reads (an index
 * into stores[], -1 none) and the index its own store takes (-1 none). */
typedef struct way {
    int read;
    int place;
} way;

/* The schedule's atomic locations, its part of the world (run/world.h). */
typedef struct location_state {
    location locs[MAX_LOCATIONS];
    int nlocs;
    way *ways;    /* ways()'s answer, grown as the histories do */
    int ways_cap;
    bool c11; /* --model c11: N1570's contiguous release sequences (the search's options) */
    bool candidates; /* the candidate search: coherence and atomicity unchecked (the search's options) */
} location_state;

#endif /* LOCKSTEP_EXPLORE_LOCATION_STATE_H */
