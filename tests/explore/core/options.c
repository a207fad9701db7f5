/*
 * How a search runs, as a value: explore_options (explore.h), filled by a
 * program's main from its command line and handed to explore_run, which
 * gives the model its part when the search starts (location.c the model,
 * point.c spurious failures). The one place the explorer reads the
 * environment: the variables users set instead of an option, read here
 * for main.c and explore_litmus, never inside the model.
 */
#include "explore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "rc11" or "c11" into *c11; false if neither. */
bool explore_parse_model(const char *name, bool *c11)
{
    if (strcmp(name, "rc11") == 0 || strcmp(name, "c11") == 0) {
        *c11 = name[0] == 'c';
        return true;
    }
    return false;
}

bool explore_options_init(explore_options *o, const char *program, char *why, size_t size)
{
    *o = (explore_options){.bound = 2, .program = program};
    const char *model = getenv("LOCKSTEP_EXPLORE_MODEL");
    if (model && *model && !explore_parse_model(model, &o->c11)) {
        snprintf(why, size, "LOCKSTEP_EXPLORE_MODEL=%s: the model is rc11 or c11", model);
        return false;
    }
    const char *spurious = getenv("LOCKSTEP_EXPLORE_SPURIOUS");
    o->spurious = spurious && strcmp(spurious, "1") == 0;
    const char *bound = getenv("LOCKSTEP_EXPLORE_PREEMPTIONS");
    if (bound) {
        o->bound = atoi(bound);
        o->bound_is_hard = true;
    }
    return true;
}
