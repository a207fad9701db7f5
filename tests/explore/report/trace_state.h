/* trace.c's part of a schedule's world (run/world.h): its types, declared
 * here so that report/part.h can hold the part by value; only trace.c reads it. */
#ifndef LOCKSTEP_EXPLORE_TRACE_STATE_H
#define LOCKSTEP_EXPLORE_TRACE_STATE_H

#include "model.h"

#define TRACE_LINE 320

/* What the trace keeps, its part of the world (run/world.h): each
 * event's formatted line (4096 x 320 bytes: too big for the stack). */
typedef struct trace_state {
    char lines[MAX_EVENTS][TRACE_LINE];
    int width; /* the columns' width, the options' (trace_set_width); 0: no limit */
} trace_state;

#endif /* LOCKSTEP_EXPLORE_TRACE_STATE_H */
