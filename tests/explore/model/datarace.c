/*
 * The data-race check on plain memory.
 *
 * C11 5.1.2.4p25: "The execution of a program contains a data race if it
 * contains two conflicting actions in different threads, at least one of
 * which is not atomic, and neither happens before the other." Two actions
 * conflict (p4) if they touch the same memory location and one of them
 * writes it. Most of the steps' memory orders exist for this: the frame's
 * result written by the completer and read by the awaiter, the waiter
 * node's handle and next written by the waiter and read by set(), a frame
 * freed by one thread after another thread's last use of it.
 *
 * The plain accesses arrive through the compiler's ThreadSanitizer
 * instrumentation (tsan.c); the atomic ones, the frees and atomic_init
 * from the hook's entry points, each with its event.
 *
 * The check is FastTrack's (Flanagan and Freund, PLDI 2009), kept per byte:
 * a byte remembers the last write (thread, epoch, where) and each thread's
 * last read; an access that conflicts with one of them that does not happen
 * before it (clock.c) is a race. Freeing a block is a write to all of it,
 * as in ThreadSanitizer. Atomic accesses race with plain ones too (p25 asks
 * only that one of the two is not atomic): with a free above all.
 */
#include "model/part.h"

#include <stdio.h>
#include <string.h>

/* This file's part of the schedule's world, through its layer's (model/part.h). */
static inline datarace_state *st(void) { return &model_now()->datarace; }

void datarace_reset(void (*on_race)(void *ctx, const char *what), void *ctx)
{
    ++st()->generation;
    st()->used = 0;
    st()->on_race = on_race;
    st()->race_ctx = ctx;
}

void datarace_quiet(bool on) { st()->quiet += on ? 1 : -1; }
bool datarace_is_quiet(void) { return st()->quiet != 0; }
int datarace_quiet_level(void) { return st()->quiet; }
void datarace_set_quiet_level(int level) { st()->quiet = level; }
void explore_unchecked(bool on)
{
    if (on)
        path_scenario_touched(); /* the search's dependence (step.c) */
    datarace_quiet(on);
}

static shadow *shadow_of(uintptr_t addr)
{
    uint32_t h = (uint32_t)((addr * 0x9E3779B97F4A7C15ull) >> (64 - SHADOW_BITS));
    for (;; h = (h + 1) & (SHADOW_SIZE - 1)) {
        shadow *s = &st()->shadow[h];
        if (s->generation != st()->generation) {
            if (++st()->used > SHADOW_SIZE / 2)
                explore_fail("explorer", "more than %u bytes of plain memory touched in one schedule",
                             SHADOW_SIZE / 2);
            /* The header only: read[] and atomic[] count only where readers
             * and atomics say (a byte's shadow is hundreds of bytes, most
             * never touched: writing it all was most of a schedule's time). */
            s->addr = addr;
            s->generation = st()->generation;
            s->writer = -1;
            s->readers = s->atomics = 0;
            return s;
        }
        if (s->addr == addr)
            return s;
    }
}

/* Every byte's last write happens before thread t's point (none: the
 * object was not written in this schedule). Happens-before is the
 * execution's (clock.c), not the schedule's: see explore_read_settled. */
bool datarace_settled(int t, const volatile void *p, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const shadow *s = shadow_of((uintptr_t)p + i);
        if (s->writer >= 0 && !clock_hb(s->writer, s->write.epoch, t))
            return false;
    }
    return true;
}

/* ---- the report ------------------------------------------------------------------ */

/* "task.c:70 (p->m_holder = result;)", or what the event was. */
static void where(const shadow_access *x, char *buf, size_t size)
{
    const event *e = x->event >= 0 ? event_at(x->event) : NULL;
    if (!e && x->site)
        name_site(x->site->file, x->site->line, buf, size);
    else if (!e)
        name_code_address(x->pc, buf, size);
    else if (e->kind == EV_ATOMIC && e->plain) /* a program's plain access the model runs (a litmus file's *x) */
        name_site(e->site->file, e->site->line, buf, size);
    else if (e->kind == EV_ATOMIC)
        snprintf(buf, size, "%s:%d (an atomic operation)", base_name(e->site->file), e->site->line);
    else if (e->kind == EV_INIT)
        snprintf(buf, size, "%s:%d (atomic_init, a plain write)", base_name(e->site->file), e->site->line);
    else
        snprintf(buf, size, "(a free)");
}

/* Where in the trace: an atomic operation or a free is a line of its own;
 * a plain access lies between two lines. */
static void when(const shadow_access *x, char *buf, size_t size)
{
    if (x->event >= 0 && event_at(x->event)->line)
        snprintf(buf, size, "trace line %d", event_at(x->event)->line);
    else if (x->site && x->after > 0) /* a program's own plain access (explore_plain): the line just written */
        snprintf(buf, size, "trace line %d", x->after);
    else if (x->after == 0)
        snprintf(buf, size, "before trace line 1");
    else
        snprintf(buf, size, "after trace line %d", x->after);
}

/* The access as an event the graph can draw: its own, or a new one. */
static void blame(int thread, bool write, const shadow_access *x, const char *site)
{
    if (x->event >= 0) {
        fail_blame(event_at(x->event));
        return;
    }
    event *e = event_silent(EV_PLAIN, thread, NULL);
    e->after = x->after;
    e->stores = write;
    snprintf(e->text, sizeof e->text, "%s", site);
    fail_blame(e);
}

static void race(uintptr_t addr, int u, bool u_writes, const shadow_access *earlier, int t, bool t_writes,
                 const shadow_access *now, const event *free_event)
{
    if (st()->reported)
        return;
    st()->reported = true;
    char what[200], a[48], b[48], why[600], w1[48], w2[48], s1[200], s2[200], msg[1600];
    name_memory(addr, what, sizeof what);
    where(earlier, s1, sizeof s1);
    where(now, s2, sizeof s2);
    unordered_explain(u, earlier->epoch, t, why, sizeof why);
    name_thread(u, a, sizeof a);
    name_thread(t, b, sizeof b);
    when(earlier, w1, sizeof w1);
    when(now, w2, sizeof w2);
    if (free_event) {
        char at[160];
        if (free_event->site)
            snprintf(at, sizeof at, "%s:%d", base_name(free_event->site->file), free_event->site->line);
        else
            snprintf(at, sizeof at, "lockstep_free");
        snprintf(msg, sizeof msg, "%s frees %s at %s (%s) while %s %s it at %s (%s), and nothing orders that access "
                 "before the free. %s", b, what, at, w2, a, u_writes ? "wrote" : "read", s1, w1, why);
    } else {
        snprintf(msg, sizeof msg, "on %s: %s %s it at %s (%s), %s %s it at %s (%s), and nothing orders the two. %s",
                 what, a, u_writes ? "wrote" : "read", s1, w1, b, t_writes ? "writes" : "reads", s2, w2, why);
    }
    if (st()->on_race) {
        st()->on_race(st()->race_ctx, msg);
        return;
    }
    blame(u, u_writes, earlier, s1);
    blame(t, t_writes, now, s2);
    explore_fail("data race", "%s", msg);
}

/* ---- the check ------------------------------------------------------------------ */

static void check_byte(uintptr_t addr, int t, bool write, const shadow_access *now, const event *free_event)
{
    shadow *s = shadow_of(addr);
    if (s->writer >= 0 && !clock_hb(s->writer, s->write.epoch, t))
        race(addr, s->writer, true, &s->write, t, write, now, free_event);
    for (unsigned m = s->atomics; m; m &= m - 1) {
        int u = __builtin_ctz(m);
        if ((write || s->atomic[u].wrote) && !clock_hb(u, s->atomic[u].epoch, t))
            race(addr, u, s->atomic[u].wrote, &s->atomic[u], t, write, now, free_event);
    }
    if (write) {
        for (unsigned m = s->readers; m; m &= m - 1) {
            int u = __builtin_ctz(m);
            if (!clock_hb(u, s->read[u].epoch, t))
                race(addr, u, false, &s->read[u], t, true, now, free_event);
        }
        /* Every earlier access happens before this write: later accesses
         * need only be checked against it (FastTrack). */
        s->readers = s->atomics = 0;
        s->writer = (int8_t)t;
        s->write = *now;
    } else {
        s->read[t] = *now;
        s->readers |= (uint8_t)(1u << t);
    }
}

static void check_range(int t, const volatile void *p, size_t size, bool write, const shadow_access *now,
                        const event *free_event)
{
    st()->reported = false;
    for (size_t i = 0; i < size; ++i)
        check_byte((uintptr_t)p + i, t, write, now, free_event);
}

void datarace_plain(int t, const volatile void *p, size_t size, bool write, const void *pc, const explore_site *site)
{
    shadow_access now = {.epoch = clock_now(t), .pc = pc, .site = site, .event = -1, .after = event_trace_lines()};
    check_range(t, p, size, write, &now, NULL);
}

/* atomic_init: "not an atomic operation" (7.17.2.2): a plain write, which
 * another thread's atomic operation must not race with. The sequencer's
 * m_latest exchange is acq_rel for this: the node it hands over was
 * initialized by the queue call that put it there. */
void datarace_init(int t, const event *e, size_t size)
{
    shadow_access now = {.epoch = clock_now(t), .event = event_index(e), .after = event_trace_lines()};
    check_range(t, e->obj, size, true, &now, NULL);
}

void datarace_free(int t, const volatile void *p, size_t size, const event *free_event)
{
    shadow_access now = {.epoch = clock_now(t), .event = event_index(free_event), .after = event_trace_lines()};
    check_range(t, p, size, true, &now, free_event);
}

/* An atomic operation: checked against the plain accesses only (two atomic
 * operations never race), and remembered for them. */
void datarace_atomic(int t, const event *e, size_t size, bool wrote)
{
    shadow_access now = {.epoch = clock_now(t), .event = event_index(e), .after = e->line - 1, .wrote = wrote};
    st()->reported = false;
    for (size_t i = 0; i < size; ++i) {
        uintptr_t addr = (uintptr_t)e->obj + i;
        shadow *s = shadow_of(addr);
        if (s->writer >= 0 && !clock_hb(s->writer, s->write.epoch, t))
            race(addr, s->writer, true, &s->write, t, wrote, &now, NULL);
        if (wrote)
            for (unsigned m = s->readers; m; m &= m - 1) {
                int u = __builtin_ctz(m);
                if (!clock_hb(u, s->read[u].epoch, t))
                    race(addr, u, false, &s->read[u], t, true, &now, NULL);
            }
        if (!(s->atomics & (1u << t)) || !s->atomic[t].wrote || wrote)
            s->atomic[t] = now;
        else
            s->atomic[t].epoch = now.epoch; /* keep "it stored", at the later epoch */
        s->atomics |= (uint8_t)(1u << t);
    }
}
