/*
 * The run's list of skips (skip_log.h): a file ctest names in
 * LOCKSTEP_SKIP_LOG, one line a skip, opened for appending at each one, so
 * that every test process of the run adds its own.
 */
#include "skip_log.h"

#include <stdio.h>
#include <stdlib.h>

void lockstep_skip_log(const char *line)
{
    const char *log = getenv("LOCKSTEP_SKIP_LOG");
    FILE *f = log && *log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "%s\n", line);
        fclose(f);
    }
}
