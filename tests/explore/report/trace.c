/*
 * The trace of one schedule: its events (event.c) formatted as lines, one
 * column per thread, so that a student reads the interleaving top to
 * bottom. A line of an atomic operation says what the model did with it:
 * the value it read or stored, its order (and the one written, when
 * --weaken changed it), a stale read and the store it should have read, a
 * synchronization and the release it joined.
 *
 * On a terminal the columns fit it (its width, or $COLUMNS: the search's
 * options say which, options.c reads them): a line too long for its column
 * wraps within it, before a parenthesis or the order where it can, so that
 * `(took out: completed)` stays whole, and the columns split the width so
 * as to take the fewest rows. Into a file or a pipe the lines stay whole
 * unless $COLUMNS asks. A program reads the trace from --json
 * (trace_json), not from these columns.
 */
#include "report/part.h"
#include "core/json.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* This file's part of the schedule's world, through its layer's (report/part.h). */
static inline trace_state *st(void) { return &report_now()->trace; }

/* " (stale: reads line 3's store, not line 7's)", " (syncs with line 5)", or "". */
static void what_it_saw(const event *e, char *buf, size_t size)
{
    buf[0] = '\0';
    int newest = e->newest >= 0 ? event_at(e->newest)->line : 0;
    bool initial = e->reads_from < 0 || event_at(e->reads_from)->kind == EV_INIT;
    if (e->stale && !initial && e->newest >= 0)
        snprintf(buf, size, "  (stale: reads line %d's store, not line %d's)", event_at(e->reads_from)->line, newest);
    else if (e->stale && e->newest >= 0)
        snprintf(buf, size, "  (stale: reads the initial value, not line %d's store)", newest);
    else if (e->synchronizes && !initial)
        snprintf(buf, size, "  (syncs with line %d)", event_at(e->reads_from)->line);
    else if (e->spurious)
        snprintf(buf, size, "  (a spurious failure: a weak compare-exchange may fail)");
    if (e->before >= 0 && strlen(buf) + 64 < size) /* location.c: placed before a store that ran earlier */
        snprintf(buf + strlen(buf), size - strlen(buf), "  (before line %d's store in modification order)",
                 event_at(e->before)->line);
}

static void format_atomic(const event *e, char *buf, size_t size)
{
    char field[64], f[96], in[64], out[64], want[64], order[64], saw[96];
    name_field(e->site->object, field, sizeof field);
    name_value(field, e->obj, e->stored, in, sizeof in);
    name_value(field, e->obj, e->read, out, sizeof out);
    const char *owner = names_of_fields() ? explore_name_of(alloc_block_of(e->obj)) : NULL;
    if (owner)
        snprintf(f, sizeof f, "%s of %s", field, owner);
    else
        snprintf(f, sizeof f, "%s", field);
    if (e->order != e->written)
        snprintf(order, sizeof order, "%s, weakened from %s", explore_order_name(e->order), explore_order_name(e->written));
    else
        snprintf(order, sizeof order, "%s", explore_order_name(e->order));
    what_it_saw(e, saw, sizeof saw);
    const char *at = base_name(e->site->file);
    int line = e->site->line;
    /* a non-atomic access (a litmus file's *x), which the model runs as a
     * relaxed one: one line, named for what the source wrote */
    if (e->plain && e->op == OP_LOAD) {
        snprintf(buf, size, "%s:%d plain read %s -> %s  (not atomic)%s", at, line, f, out, saw);
        return;
    }
    if (e->plain && e->op == OP_STORE) {
        snprintf(buf, size, "%s:%d plain write %s <- %s  (not atomic)%s", at, line, f, in, saw);
        return;
    }
    switch (e->op) {
    case OP_LOAD:
        snprintf(buf, size, "%s:%d load %s -> %s  [%s]%s", at, line, f, out, order, saw);
        break;
    case OP_STORE:
        snprintf(buf, size, "%s:%d store %s <- %s  [%s]%s", at, line, f, in, order, saw);
        break;
    case OP_RMW:
        if (e->rmw == EXPLORE_RMW_XCHG)
            snprintf(buf, size, "%s:%d exchange %s <- %s (took out: %s)  [%s]%s", at, line, f, in, out, order, saw);
        else
            snprintf(buf, size, "%s:%d %s %s, %s (took out: %s)  [%s]%s", at, line, e->site->name, f, in, out,
                     order, saw); /* the operand as the scenario names it (step 09 ors in a frame) */
        break;
    case OP_CAS:
        name_value(field, e->obj, e->expected, want, sizeof want);
        snprintf(buf, size, "%s:%d compare_exchange %s: %s -> %s %s (found: %s)  [%s]%s", at, line, f, want, in,
                 e->ok ? "done" : "failed", out, order, saw);
        break;
    }
}

/* "task.c:60 " for a site, "MP.litmus " for one with no line, "" for none. */
static const char *at(const event *e, char *buf, size_t size)
{
    buf[0] = '\0';
    if (e->site && e->site->line)
        snprintf(buf, size, "%s:%d ", base_name(e->site->file), e->site->line);
    else if (e->site)
        snprintf(buf, size, "%s ", base_name(e->site->file));
    return buf;
}

void trace_format(const event *e, char *buf, size_t size)
{
    char where[64], obj[64];
    const char *name = explore_name_of(e->obj);
    if (e->site)
        name_field(e->site->object, obj, sizeof obj);
    switch (e->kind) {
    case EV_ATOMIC: format_atomic(e, buf, size); return;
    case EV_ALLOC:
        name = e->text[0] ? e->text : name ? name : "";
        snprintf(buf, size, "%sallocate %zu bytes%s%s%s", at(e, where, sizeof where), e->size,
                 name[0] ? (e->failed ? " for " : ": ") : "", name,
                 e->failed ? ": fails (injected: lockstep_alloc_fail_nth)" : "");
        return;
    case EV_FREE:
        if (e->site)
            snprintf(buf, size, "%sfree %s", at(e, where, sizeof where), name ? name : "block");
        else
            snprintf(buf, size, "free %s%s", name ? name : "a block", name_is_coro(e->obj) ? "'s frame" : "");
        return;
    case EV_LOCK: snprintf(buf, size, "%slock %s", at(e, where, sizeof where), obj); return;
    case EV_UNLOCK: snprintf(buf, size, "%sunlock %s", at(e, where, sizeof where), obj); return;
    case EV_WAIT: snprintf(buf, size, "%swait on %s (unlocks the mutex)", at(e, where, sizeof where), obj); return;
    case EV_WOKEN:
        snprintf(buf, size, "%s%s, relocks the mutex", at(e, where, sizeof where),
                 e->spurious ? "wakes up unsignalled (a spurious wake-up: POSIX allows it)" : "woken up");
        return;
    case EV_SIGNAL:
    case EV_BROADCAST: {
        char who[64] = "nobody";
        size_t len = 0;
        for (unsigned w = e->woken; w && len < sizeof who; w &= w - 1)
            len += (size_t)snprintf(who + len, sizeof who - len, "%sT%d", len ? ", " : "", __builtin_ctz(w));
        snprintf(buf, size, "%s%s %s (wakes %s)", at(e, where, sizeof where), e->site->name, obj, who);
        return;
    }
    case EV_INIT: {
        char value[64];
        name_value(obj, e->obj, e->stored, value, sizeof value);
        snprintf(buf, size, "%satomic_init %s = %s", at(e, where, sizeof where), obj, value);
        return;
    }
    default: snprintf(buf, size, "%s", e->text); return;
    }
}

/* ---- the columns ----------------------------------------------------------- */

void trace_set_width(int width) { st()->width = width; }

static int terminal_width(void) { return st()->width ? st()->width : EXPLORE_NO_WIDTH; }

/* The next piece of text that fits width: up to a break before " (" or
 * "  [" if there is one in its second half, else before a space, else
 * width characters. */
static int piece(const char *s, int width)
{
    int n = (int)strlen(s);
    if (n <= width)
        return n;
    int space = 0;
    for (int i = width; i > 0; --i) {
        if (s[i] == ' ' && (s[i + 1] == '(' || s[i + 1] == ' ') && i >= width / 2)
            return i;
        if (s[i] == ' ' && !space)
            space = i;
    }
    return space ? space : width;
}

/* How many rows text takes in a column of this width. */
static int rows(const char *text, int width)
{
    int n = 0;
    do {
        text += piece(text, width);
        while (*text == ' ')
            ++text;
        ++n;
    } while (*text);
    return n;
}

/* The rows a trace takes with these column widths (the last column
 * takes what is left of the terminal). */
static int cost(const char (*lines)[TRACE_LINE], int n, int nthreads, const int *width)
{
    int total = 0;
    for (int i = 0; i < n; ++i) {
        const event *e = event_at(i);
        if (!e->line)
            continue;
        if (e->thread == EXPLORE_MAIN) {
            total += rows(lines[i], terminal_width() - 12);
            continue;
        }
        total += rows(lines[i], width[e->thread]);
    }
    (void)nthreads;
    return total;
}

/* The columns' widths: the split of the terminal that takes the fewest
 * rows (every column but the last as wide as its longest line, if they
 * fit). At most 4 threads, so trying the splits is cheap. */
static void widths(const char (*lines)[TRACE_LINE], int n, int nthreads, int *width)
{
    int room = terminal_width() - 6 - 3 * (nthreads - 1), natural[EXPLORE_MAX_THREADS] = {0}, sum = 0;
    for (int t = 0; t < nthreads; ++t)
        natural[t] = 3 + (int)strlen(thread_name(t));
    for (int i = 0; i < n; ++i) {
        int t = event_at(i)->thread;
        if (t != EXPLORE_MAIN && event_at(i)->line && (int)strlen(lines[i]) > natural[t])
            natural[t] = (int)strlen(lines[i]);
    }
    for (int t = 0; t < nthreads; ++t)
        sum += natural[t];
    if (sum <= room) {
        memcpy(width, natural, sizeof natural);
        return;
    }
    /* Try every split in steps of `step` characters; keep the cheapest. */
    int step = nthreads <= 2 ? 1 : nthreads == 3 ? 2 : 4, lo = 12, best = -1, w[EXPLORE_MAX_THREADS];
    int k = nthreads - 1; /* free columns */
    for (int code = 0;; ++code) {
        int c = code, used = 0;
        for (int t = 0; t < k; ++t) {
            w[t] = lo + step * (c % ((room - lo * nthreads) / step + 1));
            c /= (room - lo * nthreads) / step + 1;
            used += w[t];
        }
        if (c)
            break;
        w[k] = room - used;
        if (w[k] < lo)
            continue;
        for (int t = 0; t < k; ++t)
            if (w[t] > natural[t])
                goto next;
        int rows_now = cost(lines, n, nthreads, w);
        if (best < 0 || rows_now < best) {
            best = rows_now;
            memcpy(width, w, sizeof w);
        }
    next:;
    }
    if (best < 0)
        for (int t = 0; t < nthreads; ++t)
            width[t] = room / nthreads;
}

/* One trace line: its thread's column, wrapped, the others blank; how
 * many lines of text it took. */
static int print_line(FILE *f, int number, int thread, const char *text, const int *width, int nthreads)
{
    bool first = true;
    int printed = 0;
    if (thread == EXPLORE_MAIN) {
        int room = terminal_width() - 12;
        do {
            int k = piece(text, room);
            if (first)
                fprintf(f, "%4d  main: %.*s\n", number, k, text);
            else
                fprintf(f, "            %.*s\n", k, text);
            text += k + (text[k] == ' ');
            first = false;
            ++printed;
        } while (*text);
        return printed;
    }
    do {
        int k = piece(text, width[thread]);
        if (first)
            fprintf(f, "%4d  ", number);
        else
            fprintf(f, "      ");
        for (int t = 0; t < thread; ++t)
            fprintf(f, "%-*s | ", width[t], "");
        int shown = k;
        while (shown > 0 && text[shown - 1] == ' ')
            --shown;
        fprintf(f, "%.*s\n", shown, text);
        text += k;
        while (*text == ' ')
            ++text;
        first = false;
        ++printed;
    } while (*text);
    (void)nthreads;
    return printed;
}

void trace_write(FILE *f)
{
    int n = event_count(), nthreads = thread_count();
    char (*lines)[TRACE_LINE] = st()->lines;
    for (int i = 0; i < n; ++i)
        if (event_at(i)->line)
            trace_format(event_at(i), lines[i], TRACE_LINE);
    int width[EXPLORE_MAX_THREADS];
    widths((const char(*)[TRACE_LINE])lines, n, nthreads, width);
    char *head = st()->printed_head;
    size_t size = sizeof st()->printed_head, used = (size_t)snprintf(head, size, "%4s  ", "");
    for (int t = 0; t < nthreads && used < size; ++t) {
        char cell[64];
        snprintf(cell, sizeof cell, "T%d %s", t, thread_name(t));
        if (t + 1 < nthreads)
            used += (size_t)snprintf(head + used, size - used, "%-*s | ", width[t], cell);
        else
            used += (size_t)snprintf(head + used, size - used, "%s", cell);
    }
    fprintf(f, "%s\n", head);
    int printed = 1;
    for (int i = 0; i < n; ++i)
        if (event_at(i)->line)
            printed += print_line(f, event_at(i)->line, event_at(i)->thread, lines[i], width, nthreads);
    if (events_truncated()) {
        fprintf(f, "      (trace truncated after %d lines)\n", event_trace_lines());
        ++printed;
    }
    st()->printed_lines = printed;
    fflush(f);
}

/* The same trace as data (--json): the threads' names, then each line of
 * the trace, its number, its thread (null: the main thread's setup and
 * checks) and its text, whole; whether the trace was cut short. */
void trace_json(json *j)
{
    char text[TRACE_LINE];
    json_object(j);
    json_key(j, "threads");
    json_array(j);
    for (int t = 0; t < thread_count(); ++t) {
        char head[64];
        snprintf(head, sizeof head, "T%d %s", t, thread_name(t));
        json_string(j, head);
    }
    json_end_array(j);
    json_key(j, "steps");
    json_array(j);
    for (int i = 0; i < event_count(); ++i) {
        const event *e = event_at(i);
        if (!e->line)
            continue;
        trace_format(e, text, sizeof text);
        json_object(j);
        json_key(j, "line");
        json_int(j, e->line);
        json_key(j, "thread");
        if (e->thread == EXPLORE_MAIN)
            json_null(j);
        else
            json_int(j, e->thread);
        json_key(j, "text");
        json_string(j, text);
        json_end_object(j);
    }
    json_end_array(j);
    json_key(j, "truncated");
    json_bool(j, events_truncated());
    json_key(j, "printed"); /* the table as the text shows it: its header line, and how many lines it took */
    if (st()->printed_lines) {
        json_object(j);
        json_key(j, "head");
        json_string(j, st()->printed_head);
        json_key(j, "lines");
        json_int(j, st()->printed_lines);
        json_end_object(j);
    } else {
        json_null(j);
    }
    json_end_object(j);
}

void trace_print(void) { trace_write(stdout); }

void explore_trace_print(void) { trace_print(); }

void explore_trace_write(FILE *f) { trace_write(f); }

void explore_trace_json(struct json *j) { trace_json(j); }
