/* thread.c's part of a schedule's world (world.h): its types, declared
 * here so that world.h can hold the part by value; only thread.c reads it. */
#ifndef LOCKSTEP_EXPLORE_THREAD_STATE_H
#define LOCKSTEP_EXPLORE_THREAD_STATE_H

#include "model.h"

typedef struct xthread {
    pthread_t pt;
    void (*fn)(void *ctx);
    void *ctx;               /* the scenario's context, fn's argument */
    const char *name;
    bool arrived;            /* waiting at a scheduling point */
    step next;               /* what it does when it goes on (step.c) */
    bool done;
    pthread_mutex_t *wants;  /* its next operation locks this mutex */
    pthread_cond_t *waits;   /* inside pthread_cond_wait, not signalled yet */
    bool (*until)(void *);   /* explore_wait_until: runnable once until(until_arg) is true */
    void *until_arg;
    const char *until_what;
} xthread;

/* The modelled mutexes: which thread holds each, and its lock's event. */
typedef struct held {
    pthread_mutex_t *m;
    int owner;
    int lock_event;
} held;

/* The schedule's threads and turns, its part of the world (world.h). mx
 * and cv are the real mutex and condition variable the turns are handed
 * over with. */
typedef struct thread_state {
    pthread_mutex_t mx;
    pthread_cond_t cv;
    xthread threads[EXPLORE_MAX_THREADS];
    int nthreads;
    int running; /* who may run */
    int arrived_at_start;
    bool in_schedule;
    held held[16];
    int nheld;
} thread_state;

#endif /* LOCKSTEP_EXPLORE_THREAD_STATE_H */
