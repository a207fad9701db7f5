/*
 * The trace of one schedule: one line per step a thread takes, printed as
 * one column per thread so that a student reads the interleaving top to
 * bottom, and the names that make values readable ("driver" rather than
 * 0x5581...).
 */
#include "explore.h"
#include "model.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

_Thread_local const char *explore_site_file = "?";
_Thread_local int explore_site_line;

/* ---- names ----------------------------------------------------------------- */

typedef struct named {
    const volatile void *addr;
    const char *name;
    bool coro;
} named;

static named g_names[32];
static int g_nnames;

static void add_name(const volatile void *addr, const char *name, bool coro)
{
    for (int i = 0; i < g_nnames; ++i)
        if (g_names[i].addr == addr) {
            g_names[i] = (named){addr, name, coro};
            return;
        }
    if (g_nnames < 32)
        g_names[g_nnames++] = (named){addr, name, coro};
}

void explore_name(const volatile void *addr, const char *name) { add_name(addr, name, false); }
void explore_name_coro(const volatile void *addr, const char *name) { add_name(addr, name, true); }

const char *explore_name_of(const volatile void *addr)
{
    for (int i = 0; i < g_nnames; ++i)
        if (g_names[i].addr == addr)
            return g_names[i].name;
    return NULL;
}

bool explore_is_coro(const volatile void *addr)
{
    for (int i = 0; i < g_nnames; ++i)
        if (g_names[i].addr == addr)
            return g_names[i].coro;
    return false;
}

/* "&p->m_waiting" -> "m_waiting": the field is what a student recognizes. */
const char *explore_field(const char *text, char *buf, size_t size)
{
    const char *s = text;
    for (const char *p = text; *p; ++p) {
        if (p[0] == '-' && p[1] == '>')
            s = p + 2;
        else if (*p == '.' || *p == '&' || *p == '(' || *p == ' ')
            s = p + 1;
    }
    snprintf(buf, size, "%s", s);
    buf[strcspn(buf, ") ")] = '\0';
    return buf;
}

void explore_format_value(const char *field, const volatile void *obj, uintptr_t v, char *buf, size_t size)
{
    if (explore_decode(field, obj, v, buf, size))
        return;
    const char *name = explore_name_of((const void *)v);
    if (name && v)
        snprintf(buf, size, "%s", name);
    else if (v < 4096)
        snprintf(buf, size, "%lu", (unsigned long)v);
    else
        snprintf(buf, size, "0x%lx", (unsigned long)v);
}

/* ---- the trace --------------------------------------------------------------- */

typedef struct event {
    int thread; /* -1: the main thread (setup, check) */
    char text[240];
} event;

#define MAX_EVENTS 2048
static event g_events[MAX_EVENTS];
static int g_nevents;
static bool g_truncated;

void explore_trace_reset(void)
{
    g_nevents = 0;
    g_truncated = false;
    g_nnames = 0;
}

int explore_trace_length(void) { return g_nevents; }

static void vadd(int thread, const char *fmt, va_list ap)
{
    if (g_nevents == MAX_EVENTS) {
        g_truncated = true;
        return;
    }
    event *e = &g_events[g_nevents++];
    e->thread = thread;
    vsnprintf(e->text, sizeof e->text, fmt, ap);
}

void explore_trace_add(int thread, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd(thread, fmt, ap);
    va_end(ap);
}

void explore_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd(explore_self(), fmt, ap);
    va_end(ap);
}

static const char *base(const char *file)
{
    const char *slash = strrchr(file, '/');
    return slash ? slash + 1 : file;
}

/* "memory_order_acq_rel" -> "acq_rel" */
static const char *order_name(const char *text)
{
    const char *p = strstr(text, "memory_order_");
    return p ? p + strlen("memory_order_") : text;
}

static bool g_name_fields;

void explore_name_fields(void) { g_name_fields = true; }

void explore_log_op(enum explore_op op, const char *opname, const char *objtext, const char *ordertext,
                    const volatile void *obj, uintptr_t stored, uintptr_t expected, uintptr_t took, bool ok)
{
    char field[64], f[96], in[64], out[64], want[64];
    explore_field(objtext, field, sizeof field);
    explore_format_value(field, obj, stored, in, sizeof in);
    explore_format_value(field, obj, took, out, sizeof out);
    const char *owner = g_name_fields ? explore_name_of(explore_block_of(obj)) : NULL;
    if (owner)
        snprintf(f, sizeof f, "%s of %s", field, owner);
    else
        snprintf(f, sizeof f, "%s", field);
    const char *at = base(explore_site_file);
    int line = explore_site_line, t = explore_self();
    const char *order = order_name(ordertext);
    char weakened[64];
    const char *w = explore_weakened_order(explore_site_file, explore_site_line);
    if (w && strcmp(w, order) != 0) {
        snprintf(weakened, sizeof weakened, "%s, weakened from %s", w, order);
        order = weakened;
    }
    const char *note = model_annotation(); /* a stale read, or the release it synchronized with */
    switch (op) {
    case EXPLORE_LOAD:
        explore_trace_add(t, "%s:%d load %s -> %s  [%s]%s", at, line, f, out, order, note);
        break;
    case EXPLORE_STORE:
        explore_trace_add(t, "%s:%d store %s <- %s  [%s]%s", at, line, f, in, order, note);
        break;
    case EXPLORE_EXCHANGE:
        explore_trace_add(t, "%s:%d exchange %s <- %s (took out: %s)  [%s]%s", at, line, f, in, out, order,
                          note);
        break;
    case EXPLORE_CAS:
        explore_format_value(field, obj, expected, want, sizeof want);
        explore_trace_add(t, "%s:%d compare_exchange %s: %s -> %s %s (found: %s)  [%s]%s", at, line, f, want, in,
                          ok ? "done" : "failed", out, order, note);
        break;
    case EXPLORE_FETCH:
        explore_trace_add(t, "%s:%d %s %s, %lu (took out: %s)  [%s]%s", at, line, opname, f, (unsigned long)stored,
                          out, order, note);
        break;
    }
    model_logged(explore_trace_length());
}

/* One column per thread, one line per event, in the order they happened. */
void explore_trace_print(void)
{
    int n = explore_nthreads();
    int width[EXPLORE_MAX_THREADS];
    char head[EXPLORE_MAX_THREADS][64];
    for (int t = 0; t < n; ++t) {
        snprintf(head[t], sizeof head[t], "T%d %s", t, explore_thread_name(t));
        width[t] = (int)strlen(head[t]);
    }
    for (int i = 0; i < g_nevents; ++i)
        if (g_events[i].thread >= 0 && (int)strlen(g_events[i].text) > width[g_events[i].thread])
            width[g_events[i].thread] = (int)strlen(g_events[i].text);

    printf("%4s  ", "");
    for (int t = 0; t < n; ++t)
        printf("%-*s%s", width[t], head[t], t + 1 < n ? " | " : "\n");
    for (int i = 0; i < g_nevents; ++i) {
        const event *e = &g_events[i];
        if (e->thread < 0) {
            printf("%4d  main: %s\n", i + 1, e->text);
            continue;
        }
        printf("%4d  ", i + 1);
        for (int t = 0; t < e->thread; ++t)
            printf("%-*s | ", width[t], "");
        printf("%s\n", e->text);
    }
    if (g_truncated)
        printf("      (trace truncated after %d lines)\n", MAX_EVENTS);
    fflush(stdout);
}

/* ---- failures ---------------------------------------------------------------- */

static const char *g_graph_path;
void explore_set_graph_path(const char *path) { g_graph_path = path; }

_Noreturn void explore_fail(const char *kind, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fflush(stderr);
    printf("\nexplore: the failing schedule, one column per thread, one line per step:\n\n");
    explore_trace_print();
    printf("\nexplore: FAILED (%s): %s\n", kind, msg);
    explore_failure_footer();
    if (g_graph_path) {
        model_write_graph(g_graph_path);
        printf("explore: the execution graph is in %s (Graphviz: dot -Tsvg)\n", g_graph_path);
    }
    fflush(stdout);
    _exit(1);
}
