/*
 * --weaken FILE:LINE=ORDER: run the step as if the atomic operation at
 * FILE:LINE had a weaker order, with no rebuild; FILE:FUNCTION=ORDER names
 * the one atomic operation of that function (FUNCTION/N its N-th, in line
 * order: a function with several), as the pages' anchors do: what a walkthrough shows,
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

/* FUNCTION or FUNCTION/N of file into its atomic operation's line: the
 * one the function has, or its n-th (1-based) in line order. 0, why, and
 * the refusal's name in *refusal, if there is no such function with
 * atomic operations ("no-function"), it has fewer than N ("no-nth"), or it
 * has several and no N says which ("ambiguous"). */
static int function_line(const char *file, const char *function, size_t len, int nth, const char **refusal,
                         char *why, size_t size)
{
    size_t n;
    const explore_site *const *all = sites(&n);
    int lines[64], nlines = 0;
    for (size_t i = 0; i < n; ++i) {
        const explore_site *s = all[i];
        if (!s->function || !s->order || strcmp(base_name(s->file), file) != 0 || strlen(s->function) != len ||
            strncmp(s->function, function, len) != 0)
            continue;
        bool dup = false;
        for (int k = 0; k < nlines; ++k)
            dup |= lines[k] == s->line;
        if (!dup && nlines < 64)
            lines[nlines++] = s->line;
    }
    for (int a = 1; a < nlines; ++a)
        for (int b = a; b > 0 && lines[b - 1] > lines[b]; --b) {
            int t = lines[b];
            lines[b] = lines[b - 1];
            lines[b - 1] = t;
        }
    if (nlines == 0) {
        snprintf(why, size, "%s has no function %.*s with an atomic operation", file, (int)len, function);
        *refusal = "no-function";
        return 0;
    }
    if (nth == 0 && nlines == 1)
        return lines[0];
    if (nth >= 1 && nth <= nlines)
        return lines[nth - 1];
    char list[256];
    size_t used = 0;
    list[0] = '\0';
    for (int k = 0; k < nlines && used < sizeof list; ++k)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%d", k ? ", " : "", lines[k]);
    *refusal = nth > nlines ? "no-nth" : "ambiguous";
    if (nth > nlines)
        snprintf(why, size, "%.*s in %s has %d atomic operation%s (line%s %s), no %d%s", (int)len, function, file,
                 nlines, nlines == 1 ? "" : "s", nlines == 1 ? "" : "s", list, nth,
                 nth == 2 ? "nd" : nth == 3 ? "rd" : "th");
    else
        snprintf(why, size, "%.*s in %s has %d atomic operations (lines %s): say which, %.*s/1 to %.*s/%d",
                 (int)len, function, file, nlines, list, (int)len, function, (int)len, function, nlines);
    return 0;
}

const char *weaken_add(const char *spec, char *why, size_t size)
{
    const char *colon = strchr(spec, ':'), *eq = strchr(spec, '=');
    weakening w = {.order = -1};
    if (!colon || !eq || eq < colon || (size_t)(colon - spec) >= 256) {
        snprintf(why, size, "--weaken takes FILE:LINE=ORDER or FILE:FUNCTION[/N]=ORDER, e.g. task.c:102=release, not %s",
                 spec);
        return "syntax";
    }
    char path[256];
    snprintf(path, sizeof path, "%.*s", (int)(colon - spec), spec);
    snprintf(w.file, sizeof w.file, "%s", base_name(path));
    char *end;
    long line = strtol(colon + 1, &end, 10);
    w.line = end == eq && line > 0 && line < 1000000 ? (int)line : 0; /* the whole of LINE, a number */
    w.order = explore_order_parse(eq + 1);
    if (!w.line && (colon[1] == '_' || (colon[1] >= 'a' && colon[1] <= 'z') || (colon[1] >= 'A' && colon[1] <= 'Z'))) {
        /* FUNCTION or FUNCTION/N */
        const char *slash = memchr(colon + 1, '/', (size_t)(eq - colon - 1));
        size_t len = (size_t)((slash ? slash : eq) - colon - 1);
        long nth = 0;
        if (slash) {
            nth = strtol(slash + 1, &end, 10);
            if (end != eq || nth < 1 || nth > 64) {
                snprintf(why, size, "--weaken %s: FUNCTION/N takes N, a number from 1", spec);
                return "syntax";
            }
        }
        char reason[400];
        const char *refusal = NULL;
        w.line = function_line(w.file, colon + 1, len, (int)nth, &refusal, reason, sizeof reason);
        if (!w.line) {
            snprintf(why, size, "--weaken %s: %s", spec, reason);
            return refusal;
        }
    }
    if (w.line <= 0 || w.order < 0) {
        snprintf(why, size, "--weaken takes FILE:LINE=ORDER or FILE:FUNCTION[/N]=ORDER, ORDER one of relaxed, "
                 "consume, acquire, release, acq_rel, seq_cst; not %s", spec);
        return "syntax";
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
        return "no-file";
    }
    if (!found) {
        snprintf(why, size, "--weaken %s: there is no atomic operation at %s:%d; %s has atomic operations at lines %s",
                 spec, w.file, w.line, w.file, near);
        return "no-line";
    }
    if (!weaker) {
        snprintf(why, size, "--weaken %s: %s is not weaker than the %s written at %s:%d (%s), so nothing would "
                 "change; a weaker order is one with fewer of its acquire and release halves",
                 spec, explore_order_name(w.order), explore_order_name(explore_order_parse(written->order)), w.file, w.line, written->name);
        return "not-weaker";
    }
    if (st()->nweaken == 8) {
        snprintf(why, size, "--weaken: at most 8 at once");
        return "too-many";
    }
    st()->weaken[st()->nweaken++] = w;
    return NULL;
}

const char *explore_weaken(const char *spec, char *why, size_t size) { return weaken_add(spec, why, size); }

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
