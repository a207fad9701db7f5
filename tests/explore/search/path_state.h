/* path.c's part of a schedule's world (run/world.h): its types, declared
 * here so that search/part.h can hold the part by value; only path.c reads it. */
#ifndef LOCKSTEP_EXPLORE_PATH_STATE_H
#define LOCKSTEP_EXPLORE_PATH_STATE_H

#include "model.h"

typedef struct decision {
    enum branch_kind kind;
    unsigned options;  /* threads that could go; the stores a load may read (bit 0: the newest) */
    unsigned tried;    /* options already explored from here, or asleep (never to be) */
    int chosen;
    int current;       /* the thread that reached the point (EXPLORE_MAIN at the start) */
    int cost;          /* preemptions and stale reads in the schedule before this decision */
    unsigned backtrack; /* options to explore from here: all, or in a reduced round those a race asks for */
    unsigned touched;   /* threads whose step from here touched the scenario's bookkeeping, in some run */
    footprint foot[EXPLORE_MAX_THREADS]; /* each thread's step from here: its plain accesses, over every run */
    step next[EXPLORE_MAX_THREADS]; /* a thread choice: each option's next step here (its foot: foot[t]) */
    int wut;   /* a thread choice: its wakeup tree's children not explored yet, in order (a node list, -1 none) */
    int guide; /* a read choice: the guide when it was met, for its other options (a node list, -1 none) */
} decision;

/* A node of a wakeup tree (path.c): a thread and the step it takes there,
 * its first child and its next sibling (node indices, -1 none). */
typedef struct wut_node {
    int thread;
    step step; /* no footprint: judged as any memory, where it touches the scenario's */
    int child, next;
} wut_node;

/* One step of a sequence to insert (path.c's reverse): its thread, its
 * place in it, the step and its clock. */
typedef struct wut_step {
    int thread;
    uint16_t seq;
    const step *step;
    const uint16_t *vc;
    bool gone; /* matched by a node on the way down */
} wut_step;

/* The steps of this schedule, each with the vector clock of the order that
 * dependence and program order make (Mazurkiewicz's happens-before: one
 * step before another when a chain of dependent steps leads there). */
typedef struct transition {
    int thread;
    step step;
    int decision;        /* where its thread was chosen (path), -1: it was the only one that could go */
    int first_event;     /* the index of its first event */
    int read;            /* the event of the store its read read, -1 none */
    bool may_write;      /* it may store (a compare-exchange may, though this one failed) */
    uint16_t seq;        /* its place in its thread: 1, 2, ... */
    uint16_t vc[EXPLORE_MAX_THREADS]; /* how many steps of each thread happen before it, itself included */
} transition;

#define MAX_DECISIONS 512
#define MAX_TRANSITIONS 2048
#define WUT_NODES 16384

/* The search's state, its part of the world (run/world.h). */
typedef struct path_state {
    decision path[MAX_DECISIONS];
    int depth;    /* decisions taken in this run */
    int prefix;   /* the first prefix decisions are replayed */
    int bound;
    bool pruned;  /* a schedule was skipped for the bound */
    char error[200];

    /* The reduction (sleep sets, step.c): a thread is *asleep* when the
     * search has already explored its next step from an equivalent state,
     * and stays so while the steps taken commute with its own. When every
     * thread that could go is asleep, this schedule repeats an execution
     * already explored: it is *blocked*, runs to its end (its threads
     * cannot be stopped midway) and opens no new branch. A *limited*
     * thread may go, but its read must read a store made since it fell
     * asleep (event mark[t] or later): what it could read before was
     * explored then. */
    bool reduce, free_mo;
    bool races; /* source sets: another thread only where a race asks for it */
    unsigned sleep, limited;
    unsigned touchy; /* asleep or limited threads whose step touched the scenario's bookkeeping */
    footprint asleep_foot[EXPLORE_MAX_THREADS]; /* their steps' footprints, as explored */
    bool paused;     /* the scheduler runs a scenario's predicate: no step's accesses */
    int mark[EXPLORE_MAX_THREADS];
    int floor; /* the running operation's oldest store it may read (an event index), -1 any */
    bool blocked;

    /* --replay: the id's choices of each kind, and how many of each are used. */
    bool replay;
    int wanted[2][MAX_DECISIONS], nwanted[2], used[2];

    transition trans[MAX_TRANSITIONS];
    footprint trans_foot[MAX_TRANSITIONS]; /* trans[i].step.foot */
    int ntrans;
    int last[EXPLORE_MAX_THREADS]; /* each thread's last step, -1 none */
    int created_by[EXPLORE_MAX_THREADS]; /* a created thread's creating step (path_spawn), -1 none */
    int racing[MAX_TRANSITIONS];   /* dpor_step's: the earlier steps the new one races with */

    /* The wakeup trees (path.c): their nodes, a free list of those unused
     * (-1 none), the *guide* (the subtree the run follows, -1 none) and
     * the one path_next hands to the run once its prefix is replayed. */
    wut_node nodes[WUT_NODES];
    int free_nodes, nfree;
    int guide, staged;
    wut_step seq[MAX_TRANSITIONS + 1]; /* the sequence reverse() inserts */

    /* The step chosen last, settled once it has run: what it did (path_ran)
     * decides its races and whom it wakes, more precisely than what it was
     * about to do (a compare-exchange that failed stored nothing). */
    struct {
        bool pending;
        int thread, decision, now;
        int read; /* the store its read read (path_read), -1 none */
        bool may_write; /* what it was about to do: it may store */
        int joined; /* the thread it joined (path_join), -1 none */
        unsigned explored;
        step ran;
        footprint foot; /* ran's */
    } chosen;
} path_state;

#endif /* LOCKSTEP_EXPLORE_PATH_STATE_H */
