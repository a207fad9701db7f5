/* report.c's part of a schedule's world (run/world.h): its types, declared
 * here so that report/part.h can hold the part by value; only report.c reads it. */
#ifndef LOCKSTEP_EXPLORE_REPORT_STATE_H
#define LOCKSTEP_EXPLORE_REPORT_STATE_H

#include "model.h"

/* The report's settings, its part of the world (run/world.h). */
typedef struct report_state {
    const char *graph_path; /* --graph FILE, or NULL */
    const char *json_path;  /* --json FILE, or NULL */
} report_state;

#endif /* LOCKSTEP_EXPLORE_REPORT_STATE_H */
