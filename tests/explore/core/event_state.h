/* event.c's part of a schedule's world (run/world.h): its types, declared
 * here so that core/part.h can hold the part by value; only event.c reads it. */
#ifndef LOCKSTEP_EXPLORE_EVENT_STATE_H
#define LOCKSTEP_EXPLORE_EVENT_STATE_H

#include "model.h"

/* The schedule's events, its part of the world (run/world.h). */
typedef struct event_state {
    event events[MAX_EVENTS];
    event overflow; /* where events go once the log is full: the trace says it was cut short */
    int n;
    int lines; /* events so far that are trace lines */
} event_state;

#endif /* LOCKSTEP_EXPLORE_EVENT_STATE_H */
