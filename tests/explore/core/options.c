/*
 * How a search runs, as a value: explore_options (explore.h), filled by a
 * program's main from its command line and handed to explore_run, which
 * gives the model and the report their part when the search starts
 * (location.c the model, point.c spurious failures, trace.c the width).
 * The one place the explorer reads the environment: the variables users
 * set instead of an option, and the terminal's width, read here for
 * main.c and explore_litmus, never inside the model or the report.
 */
#include "explore.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* "rc11" or "c11" into *c11; false if neither. */
bool explore_parse_model(const char *name, bool *c11)
{
    if (strcmp(name, "rc11") == 0 || strcmp(name, "c11") == 0) {
        *c11 = name[0] == 'c';
        return true;
    }
    return false;
}

bool explore_parse_whole(const char *text, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

bool explore_parse_points(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v > 0 && v < 100000))
        return false;
    *out = v;
    return true;
}

bool explore_take_option(int c, const char *arg, explore_options *o, char *why, size_t size)
{
    switch (c) {
    case EXPLORE_OPT_MODEL:
        if (explore_parse_model(arg, &o->c11))
            return true;
        snprintf(why, size, "--model %s: the model is rc11 or c11", arg);
        return false;
    case EXPLORE_OPT_CHECK_REDUCTION:
        if (arg && strcmp(arg, "sleep") != 0) {
            snprintf(why, size, "--check-reduction=%s: the oracle is every interleaving (no value) or sleep", arg);
            return false;
        }
        o->check_reduction = arg ? EXPLORE_CHECK_SLEEP : EXPLORE_CHECK_EVERY;
        return true;
    case EXPLORE_OPT_GRAPH_WIDTH:
        if (!explore_parse_points(arg, &o->graph_width)) {
            snprintf(why, size, "--graph-width %s: a width in points, more than 0", arg);
            return false;
        }
        return true;
    case EXPLORE_OPT_REPLAY:
        o->replay = arg;
        return true;
    default:
        snprintf(why, size, "option %d is none of the explorer's shared options", c);
        return false;
    }
}

/* The trace's width: $COLUMNS, else the terminal's, else 100 on a
 * terminal that does not say; into a file or a pipe, no limit (the docs
 * build parses the columns whole). Under 60 is not a width. */
static int trace_width(void)
{
    const char *c = getenv("COLUMNS");
    int columns;
    if (c && explore_parse_whole(c, 60, 100000, &columns))
        return columns;
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 60)
        return ws.ws_col;
    return isatty(STDOUT_FILENO) ? 100 : EXPLORE_NO_WIDTH;
}

bool explore_options_init(explore_options *o, const char *program, bool spurious_default, char *why, size_t size)
{
    *o = (explore_options){.bound = 2, .program = program, .width = trace_width()};
    const char *model = getenv("LOCKSTEP_EXPLORE_MODEL");
    if (model && *model && !explore_parse_model(model, &o->c11)) {
        snprintf(why, size, "LOCKSTEP_EXPLORE_MODEL=%s: the model is rc11 or c11", model);
        return false;
    }
    const char *spurious = getenv("LOCKSTEP_EXPLORE_SPURIOUS");
    o->spurious = spurious ? strcmp(spurious, "1") == 0 : spurious_default;
    const char *wakeups = getenv("LOCKSTEP_EXPLORE_SPURIOUS_WAKEUPS");
    o->spurious_wakeups = !wakeups || strcmp(wakeups, "0") != 0;
    const char *bound = getenv("LOCKSTEP_EXPLORE_PREEMPTIONS");
    if (bound) {
        if (!explore_parse_whole(bound, 0, 1000000, &o->bound)) {
            snprintf(why, size, "LOCKSTEP_EXPLORE_PREEMPTIONS=%s: a whole number, 0 or more", bound);
            return false;
        }
        o->bound_is_hard = true;
    }
    return true;
}
