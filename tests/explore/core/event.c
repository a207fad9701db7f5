/*
 * The events of one schedule, in the order they happened: what each step
 * of each thread did, as values. An atomic operation's event says what it
 * read, from which store, whether that store was stale and whether it
 * synchronized; a free's, which block. The model fills them in (location.c),
 * the hook's entry points log them, and the trace (trace.c) and the graph
 * (graph.c) only format them.
 *
 * Most events are trace lines, numbered from 1 in the order they are
 * logged. A few are not (an atomic_init, a plain access in a data race, a
 * resume the step's code makes): those say after which trace line they
 * happened. This is loom's Execution, reduced to its log.
 */
#include "core/part.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* This file's part of the schedule's world, through its layer's (core/part.h). */
static inline event_state *st(void) { return &core_now()->event; }

void events_reset(void)
{
    st()->n = st()->lines = 0;
}
int event_count(void) { return st()->n; }
event *event_at(int i) { return &st()->events[i]; }
int event_index(const event *e) { return e && e != &st()->overflow ? (int)(e - st()->events) : -1; }
bool events_truncated(void) { return st()->n == MAX_EVENTS; }
int event_trace_lines(void) { return st()->lines; }

static event *make(enum event_kind kind, int thread, const explore_site *site, bool traced)
{
    event *e = st()->n < MAX_EVENTS ? &st()->events[st()->n++] : &st()->overflow;
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->thread = thread;
    e->site = site;
    e->reads_from = e->newest = e->before = -1;
    e->after = st()->lines;
    if (traced && e != &st()->overflow)
        e->line = ++st()->lines;
    return e;
}

event *event_new(enum event_kind kind, int thread, const explore_site *site)
{
    return make(kind, thread, site, true);
}

event *event_silent(enum event_kind kind, int thread, const explore_site *site)
{
    return make(kind, thread, site, false);
}

void event_note(int thread, const char *fmt, ...)
{
    event *e = event_new(EV_NOTE, thread, NULL);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
}
