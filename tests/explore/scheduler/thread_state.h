/* thread.c's part of a schedule's world (run/world.h): its types, declared
 * here so that scheduler/part.h can hold the part by value; only thread.c reads it. */
#ifndef LOCKSTEP_EXPLORE_THREAD_STATE_H
#define LOCKSTEP_EXPLORE_THREAD_STATE_H

#include "model.h"

/* A scenario thread's coroutine, or the main thread's: its context and
 * stack, and what it keeps while another runs (thread.c; the type is
 * thread.c's alone; its stack is context.c's). */
struct coroutine;

typedef struct xthread {
    void (*fn)(void *ctx);
    void *(*start)(void *arg); /* instead of fn: a thread the code under test created (pthread_create) */
    void *ctx;               /* the scenario's context, fn's argument (start's for a created thread) */
    void *result;            /* a created thread's start routine returned it (pthread_join) */
    const char *name;
    bool arrived;            /* waiting at a scheduling point */
    step next;               /* what it does when it goes on (step.c) */
    bool done;
    pthread_mutex_t *wants;  /* its next operation locks this mutex */
    pthread_cond_t *waits;   /* inside pthread_cond_wait, not signalled yet */
    int spurious_from;       /* with waits: its wait's event, if it may wake spuriously (mutex.c); -1 not */
    int joins;               /* inside pthread_join: the thread it waits for, + 1 (0: none) */
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

/* The schedule's threads and turns, its part of the world (run/world.h). The
 * coroutines (one per scenario thread, and main's, EXPLORE_MAIN) are made
 * once, on first use, and live as long as the process: a schedule only
 * starts each one afresh. */
typedef struct thread_state {
    xthread threads[EXPLORE_MAX_THREADS];
    int nthreads;  /* the scenario's, then those created during the schedule */
    const char *const *names; /* the scenario's thread_names: a created thread's too, if it has one */
    int running; /* who may run: the one the last decision named */
    int current; /* who is running: the coroutine on the CPU */
    bool in_schedule;
    held held[16];
    int nheld;
    struct coroutine *coroutines[EXPLORE_MAX_THREADS + 1];
    unsigned char *tls_pristine; /* the step's thread-locals as the program started (hook.h) */
} thread_state;

#endif /* LOCKSTEP_EXPLORE_THREAD_STATE_H */
