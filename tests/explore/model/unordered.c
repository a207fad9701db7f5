/*
 * Why two accesses were not ordered: the sentence a data-race report ends
 * with. It reads the schedule's events (event.c) for the edge that would
 * have ordered thread `from`'s access before thread `to`'s, and names what
 * was missing: an acquire that read a release but was not one itself
 * (5.1.2.4p11 needs both halves), a release read by a relaxed load, a load
 * that read an older store than the one that would have carried the order
 * (C11 allows it), or nothing at all between the two threads.
 */
#include "model.h"

#include <stdio.h>

/* "T0's exchange at task.c:102 (trace line 6) read what T1's exchange at task.c:123 (line 3) stored" */
static int read_what(char *buf, size_t size, const event *r, const event *w)
{
    return snprintf(buf, size, "T%d's %s at %s:%d (trace line %d) read what T%d's %s at %s:%d (line %d) stored",
                    r->thread, r->site->name, base_name(r->site->file), r->site->line, r->line, w->thread,
                    w->site->name, base_name(w->site->file), w->site->line, w->line);
}

/* A load of `to` that read a store `from` made after its access (or a
 * store in a release sequence `from` headed after it). */
static bool explain_read(int from, uint32_t e, int to, char *buf, size_t size)
{
    for (int i = event_count() - 1; i >= 0; --i) {
        const event *r = event_at(i);
        if (r->kind != EV_ATOMIC || r->thread != to || r->op == OP_STORE || r->reads_from < 0)
            continue;
        const event *w = event_at(r->reads_from);
        bool in_sequence = w->rs_head[from] >= e && w->rs_head[from];
        bool after = w->thread == from && w->epoch >= e;
        if (!in_sequence && !after)
            continue;
        int n = read_what(buf, size, r, w);
        size_t at = n > 0 && (size_t)n < size ? (size_t)n : size - 1;
        if (!order_acquires(r->order) && (in_sequence || order_releases(w->order)))
            snprintf(buf + at, size - at, ", but it is %s: with acquire it would synchronize with that release",
                     explore_order_name(r->order));
        else if (order_acquires(r->order))
            snprintf(buf + at, size - at, ", but that store is %s: with release, this acquire would synchronize "
                     "with it", explore_order_name(w->order));
        else
            snprintf(buf + at, size - at, ", but both are relaxed: a release store read by an acquire load would "
                     "order them");
        return true;
    }
    return false;
}

/* A stale load of `to` that did not read a newer store of `from`. */
static bool explain_stale(int from, uint32_t e, int to, char *buf, size_t size)
{
    for (int i = event_count() - 1; i >= 0; --i) {
        const event *r = event_at(i);
        if (r->kind != EV_ATOMIC || r->thread != to || !r->stale || r->newest < 0)
            continue;
        const event *nw = event_at(r->newest);
        if (nw->thread != from || nw->epoch < e)
            continue;
        snprintf(buf, size, "T%d's %s at %s:%d (trace line %d) read an older store, not T%d's %s at %s:%d (line %d): "
                 "C11 allows that (nothing made T%d see it), so nothing orders the two",
                 to, r->site->name, base_name(r->site->file), r->site->line, r->line, from, nw->site->name,
                 base_name(nw->site->file), nw->site->line, nw->line, to);
        return true;
    }
    return false;
}

void unordered_explain(int from, uint32_t e, int to, char *buf, size_t size)
{
    if (explain_read(from, e, to, buf, size) || explain_stale(from, e, to, buf, size))
        return;
    snprintf(buf, size, "No operation of T%d read anything T%d stored after its access, and no mutex or "
             "thread start/join links them", to, from);
}
