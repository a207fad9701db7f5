/*
 * --weaken FILE:LINE=ORDER: run the step as if the atomic operation at
 * FILE:LINE had a weaker order, with no rebuild: what a walkthrough shows,
 * and what a student tries before editing a copy. Both orders of a
 * compare-exchange are weakened to at most the given one (a failure order
 * that is already no stronger stays).
 *
 * The argument is checked against the atomic operations the binary
 * actually contains: every atomic site of hook.h registers a pointer to
 * itself in the section explore_sites, which the linker gathers between
 * __start_explore_sites and __stop_explore_sites. A FILE:LINE with no
 * atomic operation (a comment line, a typo) or an ORDER that is not weaker
 * than the one written is refused, with the atomic lines of that file
 * nearest to it: a mistyped line must not teach that an order is needless.
 */
#include "hooks/part.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __APPLE__
#include <mach-o/getsect.h>
#include <mach-o/ldsyms.h>
static const explore_site *const *sites(size_t *n)
{
    unsigned long size = 0;
    const explore_site *const *p =
        (const void *)getsectiondata(&_mh_execute_header, "__DATA", "explore_sites", &size);
    *n = p ? size / sizeof *p : 0;
    return p;
}
#else
/* Defined by the linker when some object has the section; weak, so that a
 * binary without a hooked atomic still links (and refuses every --weaken). */
extern const explore_site *const __start_explore_sites[] __attribute__((weak));
extern const explore_site *const __stop_explore_sites[] __attribute__((weak));
static const explore_site *const *sites(size_t *n)
{
    *n = __start_explore_sites ? (size_t)(__stop_explore_sites - __start_explore_sites) : 0;
    return __start_explore_sites;
}
#endif

/* This file's part of the schedule's world, through its layer's (hooks/part.h). */
static inline weaken_state *st(void) { return &hooks_now()->weaken; }

static bool same_place(const explore_site *s, const char *file, int line)
{
    return s->line == line && strcmp(base_name(s->file), file) == 0;
}

/* "lines 78, 85, 102 (nearest: 102, exchange m_waiting [acq_rel])" for file. */
static void nearest_lines(const char *file, int line, char *buf, size_t size)
{
    size_t n, len = 0;
    const explore_site *const *all = sites(&n);
    const explore_site *nearest = NULL;
    int lines[64], nlines = 0;
    for (size_t i = 0; i < n; ++i) {
        const explore_site *s = all[i];
        if (strcmp(base_name(s->file), file) != 0)
            continue;
        if (!nearest || abs(s->line - line) < abs(nearest->line - line))
            nearest = s;
        bool dup = false;
        for (int k = 0; k < nlines; ++k)
            dup |= lines[k] == s->line;
        if (!dup && nlines < 64)
            lines[nlines++] = s->line;
    }
    for (int a = 1; a < nlines; ++a) /* sort, for the student */
        for (int b = a; b > 0 && lines[b - 1] > lines[b]; --b) {
            int t = lines[b];
            lines[b] = lines[b - 1];
            lines[b - 1] = t;
        }
    buf[0] = '\0';
    for (int k = 0; k < nlines && len < size; ++k)
        len += (size_t)snprintf(buf + len, size - len, "%s%d", k ? ", " : "", lines[k]);
    if (nearest && len < size) {
        char field[64];
        snprintf(buf + len, size - len, " (nearest: line %d, %s %s [%s])", nearest->line, nearest->name,
                 name_field(nearest->object, field, sizeof field), explore_order_name(explore_order_parse(nearest->order)));
    }
}

/* The files that have atomic operations, for a file name that has none. */
static void files(char *buf, size_t size)
{
    size_t n, len = 0;
    const explore_site *const *all = sites(&n);
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < size; ++i) {
        const char *f = base_name(all[i]->file);
        bool dup = false;
        for (size_t k = 0; k < i; ++k)
            dup |= strcmp(base_name(all[k]->file), f) == 0;
        if (!dup)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", f);
    }
}

bool weaken_add(const char *spec, char *why, size_t size)
{
    const char *colon = strchr(spec, ':'), *eq = strchr(spec, '=');
    weakening w = {.order = -1};
    if (!colon || !eq || eq < colon || (size_t)(colon - spec) >= 256) {
        snprintf(why, size, "--weaken takes FILE:LINE=ORDER, e.g. task.c:102=release, not %s", spec);
        return false;
    }
    char path[256];
    snprintf(path, sizeof path, "%.*s", (int)(colon - spec), spec);
    snprintf(w.file, sizeof w.file, "%s", base_name(path));
    char *end;
    long line = strtol(colon + 1, &end, 10);
    w.line = end == eq && line > 0 && line < 1000000 ? (int)line : 0; /* the whole of LINE, a number */
    w.order = explore_order_parse(eq + 1);
    if (w.line <= 0 || w.order < 0) {
        snprintf(why, size, "--weaken takes FILE:LINE=ORDER, ORDER one of relaxed, consume, acquire, release, "
                 "acq_rel, seq_cst; not %s", spec);
        return false;
    }
    char near[400], list[400];
    nearest_lines(w.file, w.line, near, sizeof near);
    size_t n, found = 0, weaker = 0;
    const explore_site *const *all = sites(&n);
    const explore_site *written = NULL;
    for (size_t i = 0; i < n; ++i)
        if (same_place(all[i], w.file, w.line)) {
            ++found;
            written = all[i];
            /* An order only known at run time (a litmus interpreter's) cannot be judged here. */
            int o = explore_order_parse(all[i]->order);
            weaker += o < 0 || order_weaker(w.order, o);
        }
    if (!found && !near[0]) {
        files(list, sizeof list);
        snprintf(why, size, "--weaken %s: this program has no atomic operation in a file named %s (the files with "
                 "atomic operations: %s)", spec, w.file, list);
        return false;
    }
    if (!found) {
        snprintf(why, size, "--weaken %s: there is no atomic operation at %s:%d; %s has atomic operations at lines %s",
                 spec, w.file, w.line, w.file, near);
        return false;
    }
    if (!weaker) {
        snprintf(why, size, "--weaken %s: %s is not weaker than the %s written at %s:%d (%s), so nothing would "
                 "change; a weaker order is one with fewer of its acquire and release halves",
                 spec, explore_order_name(w.order), explore_order_name(explore_order_parse(written->order)), w.file, w.line, written->name);
        return false;
    }
    if (st()->nweaken == 8) {
        snprintf(why, size, "--weaken: at most 8 at once");
        return false;
    }
    st()->weaken[st()->nweaken++] = w;
    return true;
}

bool explore_weaken(const char *spec, char *why, size_t size) { return weaken_add(spec, why, size); }

int weaken_order(const explore_site *site, int order)
{
    for (int i = 0; i < st()->nweaken; ++i)
        if (same_place(site, st()->weaken[i].file, st()->weaken[i].line) && order_weaker(st()->weaken[i].order, order))
            return st()->weaken[i].order;
    return order;
}

void weaken_args(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < st()->nweaken && len < size; ++i)
        len += (size_t)snprintf(buf + len, size - len, " --weaken %s:%d=%s", st()->weaken[i].file, st()->weaken[i].line,
                                explore_order_name(st()->weaken[i].order));
}
