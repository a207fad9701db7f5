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
    /* The table trace_write printed last, for --json: its header line, as
     * printed, and how many lines it took (0: none printed), so that a
     * reader of the text finds the table by equality, not by its shape. */
    char printed_head[EXPLORE_MAX_THREADS * (TRACE_LINE + 3) + 8];
    int printed_lines;
} trace_state;

#endif /* LOCKSTEP_EXPLORE_TRACE_STATE_H */
