/*
 * --graph FILE.dot: an execution as an execution graph, in the style of
 * herd7's (`-graph columns`) and of the figures of Rust Atomics and Locks:
 * one column per thread, in thread order, the events that matter as boxes,
 * and the relations that decide what is allowed as edges:
 *
 *   po     program order (sequenced-before, 5.1.2.3p3), down each column;
 *   rf     reads-from: from a store to the load or read-modify-write that
 *          read it, red; dashed when the read was stale (a newer store
 *          existed in modification order, and C11 allowed the older one);
 *   sw     synchronizes-with, green: an acquire that read a release store
 *          (5.1.2.4p11), or the lock of a mutex after its unlock
 *          (5.1.2.4p6): the only ways across threads that order;
 *   mo     modification order (5.1.2.4p7), blue: each store of a location
 *          to the next one, from the initial value when it is drawn;
 *   fr     from-read (RC11's fr, the "reads-before" of Lahav et al.),
 *          brown, dashed: from a read to the store that comes next in
 *          modification order after the one it read, the store it did
 *          not see (a stale read's, SB's);
 *   fence  atomic_thread_fence, a box of its own in its thread's column.
 *
 * The failure's own events (fail.c's evidence) are orange and joined by an
 * orange dashed edge: the free and the use, the two racing accesses, a
 * leaked block's allocation and the last operation that could have freed
 * it, a coroutine's publication and the resume that never came (a dashed
 * box), the resumes nested in one another, the lock a deadlocked thread
 * waits behind. Nothing of the harness is drawn (the main thread's setup,
 * its checks, its frees) unless it is part of the failure; the initial
 * values a drawn load read sit in a row of their own above the threads.
 *
 * The layout is computed here, not left to Graphviz: a row per step of
 * the trace (events of different threads share a row while the trace
 * order allows), columns as wide as their widest box, text wrapped so that
 * the whole graph fits a page's column at its natural size (12-point
 * text: body size when a page shows it unscaled). Graphviz only draws:
 * the file asks for neato with every box pinned (dot -Tsvg graph.dot >
 * graph.svg works unchanged). A path ending in .svg is drawn here instead,
 * the same layout in SVG (graph_svg.c), for where there is no Graphviz:
 * the course's playground runs the explorer in a browser. Each edge is labelled with its relation
 * (po, rf, sw, mo, fr), in its colour, so that a graph read in black and
 * white still says what it shows; the legend under the graph says what
 * each kind is, and lists only the kinds this graph has.
 */
#include "report/part.h"
#include "core/json.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FONT 12.0        /* points: the node text (16 px, body text size, unscaled) */
#define CHAR_W 7.2       /* points: a monospace character at FONT */
#define LINE_H 15.0      /* points: a line of text at FONT */
#define PAGE_W 540.0     /* points: the widest graph a page shows unscaled (720 px); --graph-width sets another */
#define COL_GAP 24.0     /* points between two columns */
#define ROW_GAP 16.0     /* points between two rows */
#define PAD_W 14.0       /* points: a box's margin, left and right together */
#define PAD_H 10.0

static bool blamed(int i)
{
    const evidence *ev = fail_evidence();
    for (int k = 0; k < ev->n; ++k)
        if (ev->events[k] == i)
            return true;
    return false;
}

/* Whether event i concerns the culprit: it published it (stored its
 * handle: a suspension) or resumed it. */
static bool about_culprit(const event *e)
{
    const volatile void *c = fail_evidence()->culprit;
    const void *block = c ? alloc_block_of(c) : NULL;
    if (!block)
        return false;
    if (e->kind == EV_RESUME)
        return alloc_block_of(e->obj) == block;
    /* a handle or a node inside its frame, stored where the other side looks */
    return e->kind == EV_ATOMIC && e->stores && alloc_block_of((const void *)e->stored) == block;
}

/* An initial value that a drawn load read. */
static bool init_read(int i)
{
    for (int k = i + 1; k < event_count(); ++k) {
        const event *e = event_at(k);
        if (e->kind == EV_ATOMIC && e->reads_from == i && e->thread != EXPLORE_MAIN)
            return true;
    }
    return false;
}

static bool drawn(int i, const char *kind)
{
    const event *e = event_at(i);
    if (blamed(i) || about_culprit(e))
        return true;
    if (e->kind == EV_INIT)
        return init_read(i);
    if (e->thread == EXPLORE_MAIN) /* the harness: setup, checks, frees */
        return false;
    switch (e->kind) {
    case EV_ATOMIC: case EV_FENCE: case EV_FREE: case EV_LOCK: case EV_UNLOCK: case EV_WAIT: case EV_WOKEN:
    case EV_SIGNAL: case EV_BROADCAST:
        return true;
    case EV_RESUME:
        return strcmp(kind, "stack grows") == 0;
    case EV_NOTE: /* what the scenario does, for context; not the ends of threads */
        return strcmp(e->text, "(finished)") != 0;
    default:
        return false;
    }
}

/* ---- the text of a box ------------------------------------------------------ */

/* Cuts the notes the edges now draw ("  (syncs with line 5)", "  (stale:
 * ...)", "  (before line 3's store in modification order)") off a trace
 * line. */
static void cut_notes(char *s)
{
    static const char *const notes[] = {"  (syncs with", "  (stale:", "  (before line"};
    for (size_t k = 0; k < sizeof notes / sizeof notes[0]; ++k) {
        char *p = strstr(s, notes[k]);
        if (p)
            *p = '\0';
    }
}

/* Splits "task.c:113 exchange ..." into where ("task.c:113", or "line 12"
 * for a litmus file, whose name the page already says) and what. */
static const char *split_site(const char *text, char *where, size_t size)
{
    where[0] = '\0';
    const char *space = strchr(text, ' ');
    const char *colon = strchr(text, ':');
    if (!space || !colon || colon > space || colon[1] < '0' || colon[1] > '9')
        return text;
    int len = (int)(colon - text);
    if (len > 7 && strncmp(colon - 7, ".litmus", 7) == 0)
        snprintf(where, size, "line %.*s", (int)(space - colon - 1), colon + 1);
    else
        snprintf(where, size, "%.*s", (int)(space - text), text);
    return space + 1;
}

/* Breaks text into lines of at most width characters (a longer word keeps
 * its line), before a '(' or '[' where it can; '\n' between them. */
static int wrap(const char *in, int width, char *out, size_t size)
{
    size_t n = 0;
    int col = 0, widest = 0;
    while (*in && n + 2 < size) {
        while (*in == ' ')
            ++in;
        size_t word = strcspn(in, " ");
        /* keep "[release]" and "(took out: x)" together when they fit a line */
        if (*in == '(' || *in == '[') {
            const char *close = strchr(in, *in == '(' ? ')' : ']');
            size_t whole = close ? (size_t)(close - in) + strcspn(close, " ") : 0; /* and "):" after it */
            if (close && (int)whole <= width)
                word = whole;
        }
        if (word == 0)
            break;
        bool breaks = col > 0 && (col + 1 + (int)word > width || *in == '[' || (*in == '(' && col + 1 + (int)word > width));
        if (breaks) {
            out[n++] = '\n';
            col = 0;
        } else if (col > 0) {
            out[n++] = ' ';
            ++col;
        }
        for (size_t k = 0; k < word && n + 2 < size; ++k)
            out[n++] = in[k];
        col += (int)word;
        if (col > widest)
            widest = col;
        in += word;
    }
    out[n] = '\0';
    return widest;
}

/* Writes s into f as the text of an HTML-like Graphviz label. */
static void put_html(FILE *f, const char *s)
{
    for (; *s; ++s) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\n': fputs("<BR ALIGN=\"LEFT\"/>", f); break;
        default: fputc(*s, f);
        }
    }
}

/* This file's part of the schedule's world, through its layer's (report/part.h). */
static inline graph_state *st(void) { return &report_now()->graph; }

/* What the box of event i says: "store x <- 1 [release]", without the
 * trace's notes on what the edges show. */
static void box_text(int i, char *text, size_t size, char *where, size_t wsize)
{
    const event *e = event_at(i);
    char line[480];
    if (e->kind == EV_RESUME)
        snprintf(line, sizeof line, "resume %s (nesting %d)",
                 explore_name_of(e->obj) ? explore_name_of(e->obj) : "a coroutine", e->depth);
    else if (e->kind == EV_USE)
        snprintf(line, sizeof line, "%s", e->text);
    else if (e->kind == EV_PLAIN)
        snprintf(line, sizeof line, "%s %s", e->stores ? "plain write at" : "plain read at", e->text);
    else if (e->kind == EV_FENCE)
        snprintf(line, sizeof line, "%s", e->text);
    else
        trace_format(e, line, sizeof line);
    cut_notes(line);
    if (e->kind == EV_INIT && strncmp(split_site(line, where, wsize), "atomic_init ", 12) == 0) {
        snprintf(text, size, "%s", split_site(line, where, wsize) + 12); /* "x = 0": the row says initially */
        return;
    }
    snprintf(text, size, "%s", split_site(line, where, wsize));
}

/* ---- the layout -------------------------------------------------------------- */

static int col_of_thread(int t)
{
    for (int c = 0; c < st()->cols; ++c)
        if (st()->col_thread[c] == t)
            return c;
    return -1;
}

/* Where an event sits in the trace: its line, or after one. */
static double position(const event *e) { return e->line ? e->line : e->after + 0.5; }

static void collect(const char *kind, bool *shown)
{
    int *ids = st()->ids;
    int n = 0;
    for (int i = 0; i < event_count() && i < MAX_EVENTS; ++i)
        if ((shown[i] = drawn(i, kind)) && n < GRAPH_NODES)
            ids[n++] = i;
    for (int i = n ? ids[n - 1] + 1 : 0; i < event_count() && i < MAX_EVENTS; ++i)
        shown[i] = false; /* past GRAPH_NODES: not drawn */
    /* In trace order: silent events sit between the lines around them. */
    for (int a = 1; a < n; ++a)
        for (int b = a; b > 0 && position(event_at(ids[b - 1])) > position(event_at(ids[b])); --b) {
            int t = ids[b];
            ids[b] = ids[b - 1];
            ids[b - 1] = t;
        }
    bool used[THREADS] = {false};
    st()->boxes = n;
    for (int k = 0; k < n; ++k) {
        const event *e = event_at(ids[k]);
        st()->box[k] = (box){.event = ids[k]};
        if (!(e->kind == EV_INIT && e->thread == EXPLORE_MAIN))
            used[e->thread] = true;
    }
    st()->cols = 0;
    for (int t = 0; t < THREADS; ++t)
        if (used[t])
            st()->col_thread[st()->cols++] = t;
    for (int k = 0; k < n; ++k) {
        const event *e = event_at(st()->box[k].event);
        st()->box[k].col = e->kind == EV_INIT && e->thread == EXPLORE_MAIN ? -1 : col_of_thread(e->thread);
    }
}

/* An initial value sits over the column of the first load that read it,
 * or the next column that has none yet, so that its rf edge is short. */
static void place_inits(void)
{
    bool taken[THREADS] = {false};
    for (int k = 0; k < st()->boxes; ++k) {
        box *b = &st()->box[k];
        if (b->col >= 0)
            continue;
        int want = 0;
        for (int j = 0; j < st()->boxes; ++j)
            if (st()->box[j].col >= 0 && event_at(st()->box[j].event)->reads_from == b->event) {
                want = st()->box[j].col;
                break;
            }
        for (int n = 0; n < st()->cols && taken[want]; ++n)
            want = (want + 1) % st()->cols;
        taken[want] = true;
        b->over = want;
    }
}

/* A phone's layout (--graph-width narrower than a page's column): the
 * graph is scaled to a column of about 358 px, so everything in it is
 * drawn no smaller than the boxes' text (an edge's label too), the columns
 * closer, and the whole no wider than the width asked for. */
static bool phone(void) { return st()->page_w > 0 && st()->page_w < PAGE_W; }
static double col_gap(void) { return phone() ? COL_GAP / 3 : COL_GAP; }

static void layout(void)
{
    int cols = st()->cols ? st()->cols : 1;
    double page_w = st()->page_w > 0 ? st()->page_w : PAGE_W;
    int width = (int)((page_w - (cols - 1) * col_gap()) / cols - PAD_W) / CHAR_W;
    int least = phone() ? 8 : 10; /* below this a box is more lines than words: let the graph be wider */
    if (width < least)
        width = least;
    if (width > 34)
        width = 34;
    int inits = 0;
    for (int k = 0; k < st()->boxes; ++k) {
        box *b = &st()->box[k];
        char text[480];
        box_text(b->event, text, sizeof text, b->where, sizeof b->where);
        b->chars = wrap(text, width, b->text, sizeof b->text);
        b->lines = 1;
        for (const char *p = b->text; *p; ++p)
            b->lines += *p == '\n';
        if (b->where[0]) {
            b->lines += 1;
            if ((int)strlen(b->where) > b->chars)
                b->chars = (int)strlen(b->where);
        }
        inits += b->col < 0;
    }
    /* Rows: each box below the one before it in its column, and not above
     * the box before it in the trace (a later event never sits higher). */
    int last_row[THREADS], row = 0, rows = 0;
    for (int c = 0; c < THREADS; ++c)
        last_row[c] = -1;
    for (int k = 0; k < st()->boxes; ++k) {
        box *b = &st()->box[k];
        if (b->col < 0) {
            b->row = -1;
            continue;
        }
        int r = last_row[b->col] + 1;
        if (r < row)
            r = row;
        b->row = row = last_row[b->col] = r;
        if (r + 1 > rows)
            rows = r + 1;
    }
    place_inits();
    /* Columns as wide as their widest box, the initial value over it included. */
    for (int c = 0; c < st()->cols; ++c)
        st()->col_w[c] = 10 * CHAR_W;
    for (int k = 0; k < st()->boxes; ++k) {
        box *b = &st()->box[k];
        double w = b->chars * CHAR_W + PAD_W;
        int c = b->col >= 0 ? b->col : b->over;
        if (st()->cols && w > st()->col_w[c])
            st()->col_w[c] = w;
    }
    st()->width = 0;
    for (int c = 0; c < st()->cols; ++c) {
        st()->col_x[c] = st()->width + st()->col_w[c] / 2;
        st()->width += st()->col_w[c] + (c + 1 < st()->cols ? col_gap() : 0);
    }
    /* Heights: the initial values, the headers, then each row as tall as its tallest box. */
    double y = 0;
    if (inits) {
        int tallest = 1;
        for (int k = 0; k < st()->boxes; ++k)
            if (st()->box[k].col < 0 && st()->box[k].lines > tallest)
                tallest = st()->box[k].lines;
        st()->row_y[0] = y + (tallest * LINE_H + PAD_H) / 2;
        y += tallest * LINE_H + PAD_H + ROW_GAP;
    }
    st()->row_y[1] = y + LINE_H / 2; /* the headers */
    y += LINE_H + ROW_GAP / 2;
    for (int r = 0; r < rows; ++r) {
        int tallest = 1;
        for (int k = 0; k < st()->boxes; ++k)
            if (st()->box[k].row == r && st()->box[k].lines > tallest)
                tallest = st()->box[k].lines;
        st()->row_y[r + 2] = y + (tallest * LINE_H + PAD_H) / 2;
        y += tallest * LINE_H + PAD_H + ROW_GAP;
    }
    st()->bottom = y; /* where the notes under the graph start */
    for (int k = 0; k < st()->boxes; ++k) {
        box *b = &st()->box[k];
        if (b->col >= 0) {
            b->x = st()->col_x[b->col];
            b->y = st()->row_y[b->row + 2];
        } else {
            b->x = st()->cols ? st()->col_x[b->over] : 0;
            b->y = st()->row_y[0];
        }
    }
}

/* ---- writing it ---------------------------------------------------------------- */

/* A pinned position, in inches (neato's unit), y up. */
static void pin(FILE *f, double x, double y) { fprintf(f, "pos=\"%.3f,%.3f!\"", x / 72.0, -y / 72.0); }

/* How a box looks: the failure's own events orange and thick (hot), an
 * order --weaken changed purple; a plain access or a note dashed, a fence
 * rounded. */
static bool box_look(const box *b, const char **color, const char **style)
{
    const event *e = event_at(b->event);
    bool hot = blamed(b->event) || about_culprit(e) || (e->kind == EV_RESUME && e->depth > 1);
    *color = hot ? "orangered" : e->kind == EV_ATOMIC && e->order != e->written ? "purple" : "black";
    *style = e->kind == EV_NOTE || e->plain ? "dashed" : e->kind == EV_FENCE ? "rounded,bold" : "solid";
    return hot;
}

/* A box's size: a column's boxes as wide as each other, as herd7 draws them. */
static double box_w(const box *b) { return b->col >= 0 ? st()->col_w[b->col] : b->chars * CHAR_W + PAD_W; }
static double box_h(const box *b) { return b->lines * LINE_H + PAD_H; }

static void node(FILE *f, const box *b)
{
    const event *e = event_at(b->event);
    const char *color, *style;
    bool hot = box_look(b, &color, &style);
    double w = box_w(b), h = box_h(b);
    if (st()->form == GRAPH_DATA)
        return;
    if (st()->form == GRAPH_SVG) {
        char id[16];
        snprintf(id, sizeof id, "e%d", b->event);
        svg_box(&st()->canvas, id, (svg_rect){b->x, b->y, w, h}, color, style, hot ? 2 : 0, e->line, b->text, b->where);
        return;
    }
    fprintf(f, "  e%d [", b->event);
    pin(f, b->x, b->y);
    /* the trace line it is, for a page's stepper (the SVG keeps the class) */
    if (e->line > 0)
        fprintf(f, ", class=\"line-%d\"", e->line);
    fprintf(f, ", width=%.3f, height=%.3f, color=%s, fontcolor=%s, style=\"%s\"%s, label=<", w / 72.0, h / 72.0,
            color, color, style, hot ? ", penwidth=2" : "");
    put_html(f, b->text);
    fputs("<BR ALIGN=\"LEFT\"/>", f);
    if (b->where[0]) {
        fputs("<FONT COLOR=\"gray35\">", f);
        put_html(f, b->where);
        fputs("</FONT><BR ALIGN=\"LEFT\"/>", f);
    }
    fputs(">];\n", f);
}

static void headers(FILE *f, bool inits)
{
    char name[64];
    for (int c = 0; c < st()->cols; ++c) {
        int t = st()->col_thread[c];
        const char *title = t == EXPLORE_MAIN ? "main" : name_thread(t, name, sizeof name);
        if (st()->form == GRAPH_DATA)
            continue;
        if (st()->form == GRAPH_SVG) {
            svg_label(&st()->canvas, st()->col_x[c], st()->row_y[1], FONT + 1, title);
            continue;
        }
        fprintf(f, "  h%d [shape=plaintext, fixedsize=false, width=0.3, height=0.2, margin=0, fontname=\"sans-serif\", fontsize=%.0f, ", t, FONT + 1);
        pin(f, st()->col_x[c], st()->row_y[1]);
        fprintf(f, ", label=\"%s\"];\n", title);
    }
    if (inits && !phone() && st()->form == GRAPH_SVG) /* a phone's column has no room left of the graph: the row's "x = 0" says it */
        svg_label(&st()->canvas, -0.45 * 72, st()->row_y[0], FONT, "initially");
    else if (inits && !phone() && st()->form == GRAPH_DOT)
        fprintf(f, "  initially [shape=plaintext, fixedsize=false, width=0.3, height=0.2, margin=0, fontname=\"sans-serif\", fontsize=%.0f, label=\"initially\", "
                   "pos=\"%.3f,%.3f!\"];\n", FONT, -0.45, -st()->row_y[0] / 72.0);
}

enum { K_PO = 1, K_RF = 2, K_STALE = 4, K_SW = 8, K_LOCK = 16, K_MO = 32, K_FAIL = 64, K_WEAK = 128, K_FENCE = 256,
       K_PLAIN = 512, K_FSW = 1024, K_FR = 2048, K_HB = 4096, K_CYCLE = 8192 };

/* Whether a candidate's cycle has an edge from a to b: drawn there in
 * red, in place of the edge of the same pair the other kinds would draw. */
static bool on_cycle(int a, int b)
{
    const explore_verdict *v = st()->cycle;
    for (int k = 0; v && k < v->n; ++k)
        if (v->from[k] == a && v->to[k] == b)
            return true;
    return false;
}

/* An edge's label size: its relation's name, small, beside it (on a
 * phone as large as the boxes' text: the graph is scaled down there). */
static double label_size(void) { return phone() ? FONT : 10; }

static void dot_end(FILE *f, int i)
{
    if (i == GRAPH_NEVER)
        fputs("never", f);
    else
        fprintf(f, "e%d", i);
}

/* An edge: written at once into a .dot; into an SVG, kept until every
 * edge is known (svg_edges). Each is labelled with its relation in its
 * colour, so that a graph read in black and white still says what it shows. */
static void edge(FILE *f, graph_edge e)
{
    if (st()->form != GRAPH_DOT) {
        if (st()->edges == st()->edge_room) {
            int room = st()->edge_room ? 2 * st()->edge_room : 64;
            graph_edge *more = realloc(st()->edge, (size_t)room * sizeof *more);
            if (!more)
                return; /* (a drawing short of an edge, not a wrong verdict: the search goes on) */
            st()->edge = more;
            st()->edge_room = room;
        }
        st()->edge[st()->edges++] = e;
        return;
    }
    fputs("  ", f);
    dot_end(f, e.from);
    fputs(" -> ", f);
    dot_end(f, e.to);
    fprintf(f, " [color=%s", e.color);
    if (e.style)
        fprintf(f, ", style=%s", e.style);
    if (e.pen)
        fprintf(f, ", penwidth=%g", e.pen);
    if (e.label)
        fprintf(f, ", label=\"%s\", fontcolor=%s, fontsize=%g, fontname=\"sans-serif\"", e.label, e.color, label_size());
    if (e.head) /* named at its head: two edges of a cycle often join the same two boxes, and labels at their
                 * middles would sit on one another */
        fprintf(f, ", headlabel=\"%s\", labelfontcolor=%s, labelfontsize=13, labelfontname=\"sans-serif bold\", "
                   "labeldistance=2.2, labelangle=35", e.head, e.color);
    if (e.both)
        fputs(", dir=both", f);
    if (e.port)
        fprintf(f, ", tailport=%c, headport=%c", e.port, e.port);
    fputs("];\n", f);
}

static int program_order(FILE *f)
{
    int prev[THREADS], kinds = 0;
    for (int c = 0; c < THREADS; ++c)
        prev[c] = -1;
    for (int k = 0; k < st()->boxes; ++k) {
        const box *b = &st()->box[k];
        if (b->col < 0)
            continue;
        if (prev[b->col] >= 0 && !on_cycle(prev[b->col], b->event)) {
            edge(f, (graph_edge){prev[b->col], b->event, .color = "gray40", .label = "po"});
            kinds |= K_PO;
        }
        prev[b->col] = b->event;
        const event *e = event_at(b->event);
        kinds |= e->kind == EV_FENCE ? K_FENCE : 0;
        kinds |= e->kind == EV_NOTE || (e->kind == EV_ATOMIC && e->plain) ? K_PLAIN : 0;
        kinds |= e->kind == EV_ATOMIC && e->order != e->written ? K_WEAK : 0;
    }
    return kinds;
}

static int reads_from(FILE *f, const bool *shown)
{
    int kinds = 0;
    for (int i = 0; i < event_count(); ++i) {
        const event *e = event_at(i);
        if (!shown[i] || e->kind != EV_ATOMIC || e->reads_from < 0 || !shown[e->reads_from] || on_cycle(e->reads_from, i))
            continue;
        const event *w = event_at(e->reads_from);
        if (e->synchronizes && w->kind != EV_INIT) {
            edge(f, (graph_edge){e->reads_from, i, .color = "darkgreen", .pen = 2, .label = "rf, sw"});
            kinds |= K_SW;
        } else if (w->thread != e->thread || e->stale) {
            edge(f, (graph_edge){e->reads_from, i, .color = "red", .style = e->stale ? "dashed" : NULL, .label = "rf"});
            kinds |= e->stale ? K_STALE : K_RF;
        }
    }
    return kinds;
}

static bool releases(int order) { return order == memory_order_release || order == memory_order_acq_rel || order == memory_order_seq_cst; }
static bool acquires(int order) { return order == memory_order_acquire || order == memory_order_acq_rel || order == memory_order_seq_cst; }

/* Fence synchronization (7.17.4p2): a release fence before a store, in its
 * thread, synchronizes with an acquire fence after a load that read it, in
 * the load's thread. Returns the fence's event, or -1. */
static int fence_of(int from, bool after, bool (*kind)(int))
{
    int t = event_at(from)->thread;
    for (int k = after ? from + 1 : from - 1; k >= 0 && k < event_count(); k += after ? 1 : -1) {
        const event *e = event_at(k);
        if (e->thread == t && e->kind == EV_FENCE && kind(e->order))
            return k;
    }
    return -1;
}

static int fence_sync(FILE *f, const bool *shown)
{
    int kinds = 0;
    for (int i = 0; i < event_count(); ++i) {
        const event *e = event_at(i);
        if (!shown[i] || e->kind != EV_ATOMIC || e->reads_from < 0 || event_at(e->reads_from)->kind != EV_ATOMIC ||
            event_at(e->reads_from)->thread == e->thread)
            continue;
        int rel = fence_of(e->reads_from, false, releases), acq = fence_of(i, true, acquires);
        if (rel >= 0 && acq >= 0 && shown[rel] && shown[acq]) {
            edge(f, (graph_edge){rel, acq, .color = "darkgreen", .pen = 2, .label = "sw"});
            kinds |= K_FSW;
        }
    }
    return kinds;
}

/* A mutex's unlock synchronizes with its next lock (5.1.2.4p6). */
static int lock_order(FILE *f, const bool *shown)
{
    int kinds = 0;
    for (int i = 0; i < event_count(); ++i) {
        const event *e = event_at(i);
        if (!shown[i] || e->kind != EV_LOCK)
            continue;
        for (int k = i - 1; k >= 0; --k) {
            const event *u = event_at(k);
            if (u->kind != EV_UNLOCK || u->obj != e->obj)
                continue;
            if (shown[k] && u->thread != e->thread) {
                edge(f, (graph_edge){k, i, .color = "darkgreen", .pen = 2, .style = "bold", .label = "sw"});
                kinds |= K_LOCK;
            }
            break;
        }
    }
    return kinds;
}

/* On a phone, an edge between two boxes of one column leaves and enters
 * them on the side that faces the other columns, so that its curve around
 * the boxes between runs through the graph, not out past its edge (a
 * phone's column has no room there): 'w' or 'e'; 0 elsewhere. */
static char inward(int a, int b)
{
    const event *x = event_at(a), *y = event_at(b);
    int c = col_of_thread(x->thread);
    if (!phone() || x->thread != y->thread || c < 0 || st()->cols < 2)
        return 0;
    return c == st()->cols - 1 ? 'w' : 'e';
}

/* Modification order: the stores of each location, as location.c placed
 * them (e->before: the store it went just before), after its initial
 * value; each store's successor is kept for the fr edges. An edge is
 * drawn between two drawn stores: from the initial value when a drawn
 * load read it (its box is in the graph). */
static int modification_order(FILE *f, const bool *shown)
{
    int *mo = st()->mo;
    bool *done = st()->done;
    int kinds = 0;
    memset(st()->done, 0, sizeof st()->done);
    for (int i = 0; i < event_count() && i < MAX_EVENTS; ++i)
        st()->mo_next[i] = -1;
    for (int i = 0; i < event_count() && i < MAX_EVENTS; ++i) {
        const event *first = event_at(i);
        bool init = first->kind == EV_INIT;
        if (done[i] || !(init || (first->kind == EV_ATOMIC && first->stores)))
            continue;
        int n = 0;
        for (int k = i; k < event_count() && k < MAX_EVENTS && n < GRAPH_NODES; ++k) {
            const event *e = event_at(k);
            if (k == i && init) { /* the initial value comes first */
                mo[n++] = k;
                done[k] = true;
                continue;
            }
            if (e->kind == EV_INIT && e->obj == first->obj && k > i)
                break; /* the location starts again */
            if (e->kind != EV_ATOMIC || !e->stores || e->obj != first->obj)
                continue;
            done[k] = true;
            int at = n;
            for (int j = init; j < n && e->before >= 0; ++j)
                if (mo[j] == e->before)
                    at = j;
            memmove(&mo[at + 1], &mo[at], (size_t)(n - at) * sizeof mo[0]);
            mo[at] = k;
            ++n;
        }
        for (int j = 1; j < n; ++j) {
            st()->mo_next[mo[j - 1]] = mo[j];
            if (shown[mo[j - 1]] && shown[mo[j]] && !on_cycle(mo[j - 1], mo[j])) {
                edge(f, (graph_edge){mo[j - 1], mo[j], .color = "blue", .style = "bold", .label = "mo",
                                     .port = inward(mo[j - 1], mo[j])});
                kinds |= K_MO;
            }
        }
    }
    return kinds;
}

/* From-read: a read, and the store after the one it read in modification
 * order (RC11's fr, the reads-before of Lahav et al.), when it is drawn
 * and is not the read's own store (a read-modify-write's) nor one the read
 * happens before in its own thread (po says that already). */
static int from_read(FILE *f, const bool *shown)
{
    int kinds = 0;
    for (int i = 0; i < event_count() && i < MAX_EVENTS; ++i) {
        const event *e = event_at(i);
        if (!shown[i] || e->kind != EV_ATOMIC || e->reads_from < 0 || e->reads_from >= MAX_EVENTS)
            continue;
        int next = st()->mo_next[e->reads_from];
        if (next < 0 || next == i || !shown[next] || (event_at(next)->thread == e->thread && next > i) ||
            on_cycle(i, next))
            continue;
        edge(f, (graph_edge){i, next, .color = "sienna", .style = "dashed", .label = "fr"});
        kinds |= K_FR;
    }
    return kinds;
}

/* Whether a happens before b, by b's clock (clock.c: an event's clock is
 * what happens before it). */
static bool hb(const event *a, const event *b)
{
    return a->thread == b->thread ? a < b : b->clock.c[a->thread] >= a->epoch && a->epoch > 0;
}

/* Happens-before across threads between two accesses of one location
 * (hb|loc, what coherence is about), where no rf or sw edge already joins
 * them and no access of that location between them does (the transitive
 * reduction): the edge that says why a read could not read an older store. */
static int happens_before(FILE *f, const bool *shown)
{
    int kinds = 0;
    for (int i = 0; i < event_count() && i < MAX_EVENTS; ++i) {
        const event *a = event_at(i);
        if (!shown[i] || a->kind != EV_ATOMIC || a->thread == EXPLORE_MAIN)
            continue;
        for (int j = 0; j < event_count() && j < MAX_EVENTS; ++j) {
            const event *b = event_at(j);
            if (!shown[j] || b->kind != EV_ATOMIC || b->thread == EXPLORE_MAIN || b->thread == a->thread ||
                b->obj != a->obj || b->reads_from == i || !hb(a, b) || on_cycle(i, j))
                continue;
            bool between = false;
            for (int k = 0; k < event_count() && k < MAX_EVENTS && !between; ++k) {
                const event *c = event_at(k);
                between = k != i && k != j && shown[k] && c->kind == EV_ATOMIC && c->thread != EXPLORE_MAIN &&
                          c->obj == a->obj && hb(a, c) && hb(c, b);
            }
            if (between)
                continue;
            edge(f, (graph_edge){i, j, .color = "darkgreen", .style = "dotted", .pen = 1.5, .label = "hb"});
            kinds |= K_HB;
        }
    }
    return kinds;
}

/* A candidate's cycle: thick red edges, each named by its relation. */
static int cycle_edges(FILE *f)
{
    const explore_verdict *v = st()->cycle;
    for (int k = 0; v && k < v->n; ++k)
        edge(f, (graph_edge){v->from[k], v->to[k], .color = "red", .pen = 3.5, .head = v->label[k]});
    return v && v->n ? K_CYCLE : 0;
}

/* The failure's events, joined in the order they happened. */
static int failure_edges(FILE *f, const char *kind, const bool *shown, double *bottom)
{
    const evidence *ev = fail_evidence();
    int prev = -1, kinds = 0;
    for (int k = 0; k < ev->n; ++k) {
        int i = ev->events[k];
        if (!shown[i])
            continue;
        if (prev >= 0) {
            edge(f, (graph_edge){prev, i, .color = "orangered", .pen = 2, .style = "dashed",
                                 .both = strcmp(kind, "data race") == 0});
            kinds |= K_FAIL;
        }
        prev = i;
    }
    if (strcmp(kind, "lost wake-up") == 0 && ev->culprit) {
        int last = -1;
        for (int k = 0; k < st()->boxes; ++k)
            if (about_culprit(event_at(st()->box[k].event)))
                last = k;
        const char *name = explore_name_of(ev->culprit);
        char text[160];
        int chars = snprintf(text, sizeof text, "the resume of %s", name ? name : "it");
        double x = last >= 0 ? st()->box[last].x : st()->col_x[0];
        double w = chars * CHAR_W + PAD_W, h = 2 * LINE_H + PAD_H, y = *bottom + h / 2;
        st()->never = (svg_rect){x, y, w, h};
        snprintf(st()->never_text, sizeof st()->never_text, "%s\nthat never came", text);
        if (st()->form == GRAPH_SVG) {
            svg_box(&st()->canvas, "never", st()->never, "orangered", "dashed", 0, 0, st()->never_text, NULL);
        } else if (st()->form == GRAPH_DOT) {
            fprintf(f, "  never [style=dashed, color=orangered, fontcolor=orangered, width=%.3f, height=%.3f, ",
                    w / 72.0, h / 72.0);
            pin(f, x, y);
            fprintf(f, ", label=<");
            put_html(f, text);
            fprintf(f, "<BR/>that never came>];\n");
        }
        *bottom += 2 * LINE_H + PAD_H + ROW_GAP;
        if (last >= 0)
            edge(f, (graph_edge){st()->box[last].event, GRAPH_NEVER, .color = "orangered", .pen = 2, .style = "dashed"});
        kinds |= K_FAIL;
    }
    return kinds;
}

/* A left-aligned block of text under the graph, as wide as the graph. */
static void note_under(FILE *f, const char *name, const char *text, const char *color, double *bottom)
{
    char wrapped[1600];
    /* as wide as the graph, its folded corner and margins included (40 characters at least) */
    int width = (int)((st()->width > 40 * CHAR_W ? st()->width : 40 * CHAR_W) - PAD_W - 16) / CHAR_W;
    int chars = wrap(text, width, wrapped, sizeof wrapped);
    int lines = 1;
    for (const char *p = wrapped; *p; ++p)
        lines += *p == '\n';
    double w = chars * CHAR_W + PAD_W + 16, h = lines * LINE_H + PAD_H + 6; /* the note's folded corner */
    if (st()->form == GRAPH_DATA) {
        *bottom += h + ROW_GAP;
        return;
    }
    if (st()->form == GRAPH_SVG) {
        svg_note(&st()->canvas, (svg_rect){w / 2, *bottom + h / 2, w, h}, color, wrapped);
        *bottom += h + ROW_GAP;
        return;
    }
    fprintf(f, "  %s [shape=note, color=%s, fontcolor=%s, width=%.3f, height=%.3f, ", name, color, color, w / 72.0,
            h / 72.0);
    pin(f, w / 2, *bottom + h / 2);
    fprintf(f, ", label=<");
    put_html(f, wrapped);
    fprintf(f, "<BR ALIGN=\"LEFT\"/>>];\n");
    *bottom += h + ROW_GAP;
}

static void legend_row(char *buf, size_t size, int *longest, const char *color, const char *mark, const char *text)
{
    size_t n = strlen(buf);
    snprintf(buf + n, size - n, "<TR><TD ALIGN=\"LEFT\"><FONT COLOR=\"%s\">%s</FONT> %s</TD></TR>", color, mark, text);
    if ((int)strlen(text) + 3 > *longest)
        *longest = (int)strlen(text) + 3;
}

/* The legend: only the kinds this graph draws, left-aligned under the
 * graph (in view on a phone, where the graph scrolls). */
/* The legend's rows, one per kind of box or edge a graph may draw. */
static const struct legend_row {
    int kind;
    const char *color, *mark, *text;
} LEGEND[] = {
    {K_PO, "gray40", "&#8212;&#8212;", "po: program order"},
    {K_RF, "red", "&#8212;&#8212;", "rf: reads from"},
    {K_STALE, "red", "- - -", "rf, stale: a newer store existed"},
    {K_SW, "darkgreen", "&#8212;&#8212;", "sw: an acquire read a release"},
    {K_FSW, "darkgreen", "&#8212;&#8212;", "sw: a release fence, then an acquire fence"},
    {K_LOCK, "darkgreen", "&#8212;&#8212;", "sw: an unlock, then the next lock"},
    {K_MO, "blue", "&#8212;&#8212;", "mo: modification order of a location"},
    {K_FR, "sienna", "- - -", "fr: a read, then the store after the one it read"},
    {K_HB, "darkgreen", "&#183; &#183; &#183;", "hb: happens before, across threads"},
    {K_CYCLE, "red", "&#9473;&#9473;", "the cycle RC11 rejects (see the note)"},
    {K_FENCE, "black", "(&#160;)", "rounded: a fence"},
    {K_PLAIN, "black", "[- -]", "dashed: a plain access or a note"},
    {K_FAIL, "orangered", "- - -", "the failure's events, in order"},
    {K_WEAK, "purple", "purple", "an order weakened by --weaken"},
};

static void legend(FILE *f, int kinds, double bottom)
{
    char table[2400] = "";
    int n = 0, longest = 0;
    for (size_t k = 0; k < sizeof LEGEND / sizeof LEGEND[0]; ++k) {
        if (!(kinds & LEGEND[k].kind))
            continue;
        if (st()->form == GRAPH_DATA)
            continue;
        if (st()->form == GRAPH_SVG) /* a row of text each, left-aligned under the graph */
            svg_legend_row(&st()->canvas, 0, bottom + PAD_H / 2 + (n + 0.5) * (LINE_H + 4), LEGEND[k].color,
                           LEGEND[k].mark, LEGEND[k].text);
        else
            legend_row(table, sizeof table, &longest, LEGEND[k].color, LEGEND[k].mark, LEGEND[k].text);
        ++n;
    }
    if (!n || st()->form != GRAPH_DOT)
        return;
    double h = n * (LINE_H + 4) + PAD_H, w = longest * FONT * 0.62; /* sans-serif: about 0.6 em a character (DejaVu Sans) */
    fprintf(f, "  legend [shape=plaintext, fixedsize=true, width=%.3f, height=%.3f, margin=0, fontname=\"sans-serif\", "
               "fontsize=%.0f, ", w / 72.0, h / 72.0, FONT);
    pin(f, w / 2, bottom + h / 2);
    fprintf(f, ", label=<<TABLE BORDER=\"0\" CELLSPACING=\"2\">%s</TABLE>>];\n", table);
}

/* The box an edge's end is: an event's, or the resume that never came. */
static svg_rect box_of(int event)
{
    if (event == GRAPH_NEVER)
        return st()->never;
    for (int k = 0; k < st()->boxes; ++k) {
        const box *b = &st()->box[k];
        if (b->event == event)
            return (svg_rect){b->x, b->y, b->col >= 0 ? st()->col_w[b->col] : b->chars * CHAR_W + PAD_W,
                              b->lines * LINE_H + PAD_H};
    }
    return (svg_rect){0, 0, 0, 0};
}

static const box *box_at(int event)
{
    for (int k = 0; k < st()->boxes; ++k)
        if (st()->box[k].event == event)
            return &st()->box[k];
    return NULL;
}

/* Which side an edge between two boxes of one column goes around the
 * boxes between them by (+1 right, -1 left), or 0: straight, when none
 * is between (program order's next box) and no port asks for a side. */
static int around(const graph_edge *e)
{
    const box *a = box_at(e->from), *b = box_at(e->to);
    /* (an initial value sits over a column, its row above the first) */
    int col = a ? (a->col >= 0 ? a->col : a->over) : -1;
    if (!a || !b || col != (b->col >= 0 ? b->col : b->over))
        return 0;
    if (e->port)
        return e->port == 'w' ? -1 : 1;
    int lo = a->row < b->row ? a->row : b->row, hi = a->row < b->row ? b->row : a->row;
    bool between = false;
    for (int k = 0; k < st()->boxes; ++k)
        between |= st()->box[k].col == col && st()->box[k].row > lo && st()->box[k].row < hi;
    if (!between)
        return 0;
    return col == st()->cols - 1 && st()->cols > 1 ? -1 : 1; /* into the graph from its last column */
}

/* A box's column (an initial value's: the one it sits over) and row. */
static void place_of(int event, int *col, int *row)
{
    const box *b = box_at(event);
    *col = b ? (b->col >= 0 ? b->col : b->over) : -1;
    *row = b ? b->row : 0;
}

/* Whether two edges around a column run along each other: the same
 * column, rows that overlap. */
static bool beside(const graph_edge *e, const graph_edge *o)
{
    int ec, ea, eb, oc, oa, ob;
    place_of(e->from, &ec, &ea);
    place_of(e->to, &ec, &eb);
    place_of(o->from, &oc, &oa);
    place_of(o->to, &oc, &ob);
    int elo = ea < eb ? ea : eb, ehi = ea < eb ? eb : ea, olo = oa < ob ? oa : ob, ohi = oa < ob ? ob : oa;
    return ec == oc && elo <= ohi && olo <= ehi;
}

/* The SVG's edges, once all are known: each with its place among those
 * joining the same two boxes (either way), so that they bow apart. */
static void svg_edges(void)
{
    int n = st()->boxes + (st()->never.w > 0);
    svg_rect *rects = malloc((size_t)(n ? n : 1) * sizeof *rects);
    if (!rects)
        n = 0; /* (the edges drawn straight, through what is in their way) */
    for (int k = 0; rects && k < st()->boxes; ++k)
        rects[k] = box_of(st()->box[k].event);
    if (rects && st()->never.w > 0)
        rects[n - 1] = st()->never;
    for (int k = 0; k < st()->edges; ++k) {
        const graph_edge *e = &st()->edge[k];
        int nth = 0, of = 0, side = around(e);
        for (int j = 0; j < st()->edges; ++j) {
            const graph_edge *o = &st()->edge[j];
            bool same = (o->from == e->from && o->to == e->to) || (o->from == e->to && o->to == e->from);
            /* around a column, each in a lane of its own beside the others it runs along */
            if (side)
                same = j < k && around(o) == side && beside(e, o);
            nth += same && j < k;
            of += same;
        }
        char from[16] = "never", to[16] = "never";
        if (e->from != GRAPH_NEVER)
            snprintf(from, sizeof from, "e%d", e->from);
        if (e->to != GRAPH_NEVER)
            snprintf(to, sizeof to, "e%d", e->to);
        svg_draw_edge(&st()->canvas, &(svg_edge){from, to, box_of(e->from), box_of(e->to), e->color, e->style, e->pen,
                                                 e->label, e->head, e->both, around(e), nth, of, rects, n});
    }
    free(rects);
    free(st()->edge);
    st()->edge = NULL;
    st()->edges = st()->edge_room = 0;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}


/* A note under the graph: its name (the .dot's), its colour and its text. */
typedef struct note {
    const char *name, *colour;
    char text[1400];
} note;

/* The notes under the graph, in order, into said: the failure's
 * ("FAILED (kind): message", when there is a message) and a candidate's
 * cycle ("FORBIDDEN, ..."); how many. The one place that words them, for
 * the .dot, the SVG and the data alike. */
static int notes(const char *kind, const char *message, note said[2])
{
    int n = 0;
    if (message) {
        said[n] = (note){"failure", "orangered", {0}};
        snprintf(said[n++].text, sizeof said[0].text, "FAILED (%s): %s", kind, message);
    }
    if (st()->cycle && st()->cycle->n) {
        said[n] = (note){"cycle", "red", {0}};
        snprintf(said[n++].text, sizeof said[0].text, "FORBIDDEN, %s", st()->cycle->says);
    }
    return n;
}

/* The graph, laid out and drawn in st()->form: the boxes, the edges of
 * each relation, the notes under them, the legend; returns the kinds drawn. */
static int drawing(FILE *f, const char *kind, const char *message)
{
    bool *shown = st()->shown;
    collect(kind, shown);
    layout();
    bool inits = false;
    for (int k = 0; k < st()->boxes; ++k)
        inits |= st()->box[k].col < 0;
    if (st()->form == GRAPH_DOT)
        fprintf(f, "digraph execution {\n  layout=neato; splines=true; overlap=true; outputorder=edgesfirst;\n"
               "  node [shape=box, fontname=\"monospace\", fontsize=%.0f, fixedsize=true, margin=\"0.1,0.05\"];\n"
               "  edge [arrowsize=0.7];\n", FONT);
    headers(f, inits);
    for (int k = 0; k < st()->boxes; ++k)
        node(f, &st()->box[k]);
    double bottom = st()->bottom;
    int kinds = program_order(f);
    kinds |= reads_from(f, shown);
    kinds |= fence_sync(f, shown);
    kinds |= lock_order(f, shown);
    kinds |= modification_order(f, shown);
    kinds |= from_read(f, shown);
    kinds |= happens_before(f, shown);
    kinds |= cycle_edges(f);
    kinds |= failure_edges(f, kind, shown, &bottom);
    note said[2];
    for (int k = 0, n = notes(kind, message, said); k < n; ++k)
        note_under(f, said[k].name, said[k].text, said[k].colour, &bottom);
    legend(f, kinds, bottom);
    return kinds;
}

void graph_write(const char *path, const char *kind, const char *message)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        printf("explore: cannot write %s\n", path);
        return;
    }
    st()->form = ends_with(path, ".svg") ? GRAPH_SVG : GRAPH_DOT;
    st()->never = (svg_rect){0, 0, 0, 0};
    if (st()->form == GRAPH_SVG && !svg_begin(&st()->canvas, label_size())) {
        printf("explore: cannot write %s: out of memory\n", path);
        fclose(f);
        return;
    }
    drawing(f, kind, message);
    if (st()->form == GRAPH_SVG) {
        svg_edges();
        svg_end(&st()->canvas, f);
    } else {
        fprintf(f, "}\n");
    }
    fclose(f);
}

static void json_number_key(json *j, const char *key, double v)
{
    json_key(j, key);
    json_number(j, v);
}

static void json_string_key(json *j, const char *key, const char *v)
{
    json_key(j, key);
    json_string(j, v);
}

static void json_box(json *j, const box *b)
{
    const event *e = event_at(b->event);
    const char *color, *style;
    char id[16];
    box_look(b, &color, &style);
    snprintf(id, sizeof id, "e%d", b->event);
    json_object(j);
    json_string_key(j, "id", id);
    json_key(j, "line"); /* the trace's line it is; 0: none (an initial value) */
    json_int(j, e->line);
    json_key(j, "column"); /* null: an initial value, in the row above the columns, over "over" */
    if (b->col >= 0)
        json_int(j, b->col);
    else
        json_null(j);
    json_key(j, "over");
    json_int(j, b->col >= 0 ? b->col : b->over);
    json_key(j, "row");
    json_int(j, b->row);
    json_number_key(j, "x", b->x);
    json_number_key(j, "y", b->y);
    json_number_key(j, "w", box_w(b));
    json_number_key(j, "h", box_h(b));
    json_string_key(j, "text", b->text);
    json_string_key(j, "where", b->where[0] ? b->where : NULL);
    json_string_key(j, "color", color);
    json_string_key(j, "style", style);
    json_end_object(j);
}

static void json_edge(json *j, const graph_edge *e)
{
    char from[16] = "never", to[16] = "never";
    if (e->from != GRAPH_NEVER)
        snprintf(from, sizeof from, "e%d", e->from);
    if (e->to != GRAPH_NEVER)
        snprintf(to, sizeof to, "e%d", e->to);
    json_object(j);
    json_string_key(j, "from", from);
    json_string_key(j, "to", to);
    json_string_key(j, "relation", e->label ? e->label : e->head); /* NULL: the failure's own */
    json_key(j, "cycle"); /* a candidate's cycle, the relation named at its head */
    json_bool(j, e->head != NULL);
    json_string_key(j, "color", e->color);
    json_string_key(j, "style", e->style ? e->style : "solid");
    json_number_key(j, "pen", e->pen ? e->pen : 1);
    json_key(j, "both");
    json_bool(j, e->both);
    json_end_object(j);
}

/* The graph as data (--json): the same boxes, edges, notes and legend
 * graph_write draws, with the layout's places (points, y down), so that a
 * program reads what the picture shows without reading the picture. */
void graph_json(json *j, const char *kind, const char *message)
{
    char name[64];
    st()->form = GRAPH_DATA;
    st()->never = (svg_rect){0, 0, 0, 0};
    int kinds = drawing(NULL, kind, message);
    json_object(j);
    json_number_key(j, "width", st()->width);
    json_number_key(j, "font_size", FONT);         /* a box's text, points */
    json_number_key(j, "label_size", label_size()); /* an edge's label, points */
    json_key(j, "columns");
    json_array(j);
    for (int c = 0; c < st()->cols; ++c) {
        int t = st()->col_thread[c];
        json_object(j);
        json_string_key(j, "thread", t == EXPLORE_MAIN ? "main" : name_thread(t, name, sizeof name));
        json_number_key(j, "x", st()->col_x[c]);
        json_end_object(j);
    }
    json_end_array(j);
    json_key(j, "boxes");
    json_array(j);
    for (int k = 0; k < st()->boxes; ++k)
        json_box(j, &st()->box[k]);
    if (st()->never.w > 0) { /* a lost wake-up's: the resume that never came */
        json_object(j);
        json_string_key(j, "id", "never");
        json_string_key(j, "text", st()->never_text);
        json_string_key(j, "color", "orangered");
        json_string_key(j, "style", "dashed");
        json_end_object(j);
    }
    json_end_array(j);
    json_key(j, "edges");
    json_array(j);
    for (int k = 0; k < st()->edges; ++k)
        json_edge(j, &st()->edge[k]);
    json_end_array(j);
    json_key(j, "notes");
    json_array(j);
    note said[2];
    for (int k = 0, n = notes(kind, message, said); k < n; ++k)
        json_string(j, said[k].text);
    json_end_array(j);
    json_key(j, "legend");
    json_array(j);
    for (size_t k = 0; k < sizeof LEGEND / sizeof LEGEND[0]; ++k)
        if (kinds & LEGEND[k].kind)
            json_string(j, LEGEND[k].text);
    json_end_array(j);
    json_end_object(j);
    free(st()->edge);
    st()->edge = NULL;
    st()->edges = st()->edge_room = 0;
}

/* --graph-width: a phone's graph is narrower (its text wraps into more
 * lines) so that, scaled to the phone's column, its text stays readable. */
void explore_set_graph_width(double points) { st()->page_w = points; }

/* A candidate execution (the candidate search's, options.candidates):
 * drawn as any other, with the cycle v names in red and its one line
 * under the graph. */
void explore_write_candidate(const char *path, const explore_verdict *v)
{
    st()->cycle = v;
    graph_write(path, "", NULL);
    st()->cycle = NULL;
}

/* A schedule that passed (a litmus test's outcome): its events and
 * relations, no failure. */
void explore_write_graph(const char *path) { graph_write(path, "", NULL); }

void explore_graph_json(struct json *j, const explore_verdict *v)
{
    st()->cycle = v && v->n ? v : NULL;
    graph_json(j, "", NULL);
    st()->cycle = NULL;
}
