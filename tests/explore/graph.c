/*
 * --graph FILE.dot: a failing execution as an execution graph, in the
 * style of herd7's: one column per thread, the events that matter as
 * nodes, and the relations that decide what is allowed as edges:
 *
 *   po     program order (sequenced-before, 5.1.2.3p3), down each column;
 *   rf     reads-from: from a store to the load or read-modify-write that
 *          read it, red; dashed when the read was stale (a newer store
 *          existed, and C11 allowed the older one);
 *   sw     synchronizes-with (5.1.2.4p11): an rf edge whose acquire joined
 *          the release's clock, green: the only way across threads that
 *          orders.
 *
 * The failure's own events (fail.c's evidence) are orange and joined by an
 * orange dashed edge: the free and the use, the two racing accesses, a
 * leaked block's allocation and the last operation that could have freed
 * it, a coroutine's publication and the resume that never came (a dashed
 * node), the resumes nested in one another, the lock a deadlocked thread
 * waits behind. Edges carry no labels (they would sit on other edges): the
 * legend under the graph says what each kind of edge is.
 *
 * Written as Graphviz (dot -Tsvg graph.dot > graph.svg).
 */
#include "model.h"

#include <stdio.h>
#include <string.h>

#define MAX_NODES 512

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

static bool drawn(int i, const char *kind)
{
    const event *e = event_at(i);
    if (blamed(i) || about_culprit(e))
        return true;
    switch (e->kind) {
    case EV_ATOMIC: case EV_FREE: case EV_LOCK: case EV_UNLOCK: case EV_WAIT: case EV_WOKEN: case EV_SIGNAL:
    case EV_BROADCAST:
        return true;
    case EV_RESUME:
        return strcmp(kind, "stack grows") == 0;
    case EV_INIT: /* an initial value a drawn load read */
        for (int k = i + 1; k < event_count(); ++k)
            if (event_at(k)->kind == EV_ATOMIC && event_at(k)->reads_from == i)
                return true;
        return false;
    case EV_NOTE: /* what the scenario does, for context; not the ends of threads */
        return strcmp(e->text, "(finished)") != 0;
    default:
        return false;
    }
}

/* Escapes for a dot string and breaks the text into lines of about width. */
static void label_text(const char *in, int width, char *out, size_t size)
{
    size_t n = 0;
    int col = 0;
    for (; *in && n + 4 < size; ++in) {
        if (*in == ' ' && col >= width && (in[1] == '(' || in[1] == '[' || col >= width + 10)) {
            out[n++] = '\\';
            out[n++] = 'n';
            col = 0;
            continue;
        }
        if (*in == '"' || *in == '\\')
            out[n++] = '\\';
        out[n++] = *in;
        ++col;
    }
    out[n] = '\0';
}

static void node(FILE *f, int i, const char *kind)
{
    const event *e = event_at(i);
    char text[400], label[600], head[32];
    if (e->kind == EV_RESUME)
        snprintf(text, sizeof text, "resume %s (nesting %d)", explore_name_of(e->obj) ? explore_name_of(e->obj)
                 : "a coroutine", e->depth);
    else if (e->kind == EV_USE)
        snprintf(text, sizeof text, "%s", e->text);
    else if (e->kind == EV_PLAIN)
        snprintf(text, sizeof text, "%s %s", e->stores ? "plain write at" : "plain read at", e->text);
    else
        trace_format(e, text, sizeof text);
    if (e->line)
        snprintf(head, sizeof head, "%d: ", e->line);
    else
        snprintf(head, sizeof head, "after %d: ", e->after);
    char both[480];
    snprintf(both, sizeof both, "%s%s", head, text);
    label_text(both, 34, label, sizeof label);
    bool hot = blamed(i) || about_culprit(e) || (e->kind == EV_RESUME && e->depth > 1);
    const char *style = hot ? ", color=orangered, fontcolor=orangered, penwidth=2"
                        : e->kind == EV_ATOMIC && e->order != e->written ? ", color=purple, fontcolor=purple, penwidth=2"
                        : e->kind == EV_NOTE ? ", shape=plaintext, fontcolor=gray30, fontname=\"sans-serif\""
                        : "";
    fprintf(f, "    e%d [label=\"%s\", group=t%d%s];\n", i, label, e->thread, style);
    (void)kind;
}

/* Where an event sits in its column: its trace line, or after one. */
static double position(const event *e) { return e->line ? e->line : e->after + 0.5; }

static void columns(FILE *f, const char *kind, const int *ids, int n)
{
    for (int t = 0; t < THREADS; ++t) {
        int prev = -1;
        for (int k = 0; k < n; ++k) {
            if (event_at(ids[k])->thread != t)
                continue;
            if (prev < 0) {
                /* The column's title, level with the other columns' titles
                 * and in thread order (graph_write). Not a cluster: dot
                 * keeps the left-to-right order of the titles only when no
                 * cluster encloses them. */
                char name[64];
                fprintf(f, "  subgraph column_%d {\n", t);
                fprintf(f, "    h%d [shape=plaintext, fontname=\"sans-serif\", fontsize=12, group=t%d, label=\"%s\"];\n",
                        t, t, t == EXPLORE_MAIN ? "main (setup, checks)" : name_thread(t, name, sizeof name));
            }
            node(f, ids[k], kind);
            if (prev >= 0)
                fprintf(f, "    e%d -> e%d [color=gray40];\n", prev, ids[k]);
            else
                fprintf(f, "    h%d -> e%d [color=gray70, arrowhead=none];\n", t, ids[k]);
            prev = ids[k];
        }
        if (prev >= 0)
            fprintf(f, "  }\n");
    }
}

static void reads_from(FILE *f, const bool *shown)
{
    for (int i = 0; i < event_count(); ++i) {
        const event *e = event_at(i);
        if (!shown[i] || e->kind != EV_ATOMIC || e->reads_from < 0 || !shown[e->reads_from])
            continue;
        const event *w = event_at(e->reads_from);
        if (e->synchronizes)
            fprintf(f, "  e%d -> e%d [color=darkgreen, penwidth=2, constraint=false];\n", e->reads_from, i);
        else if (w->thread != e->thread || e->stale)
            fprintf(f, "  e%d -> e%d [color=red%s, constraint=false];\n", e->reads_from, i,
                    e->stale ? ", style=dashed" : "");
    }
}

/* The failure's events, joined in the order they happened. */
static void failure_edges(FILE *f, const char *kind, const bool *shown)
{
    const evidence *ev = fail_evidence();
    int prev = -1;
    for (int k = 0; k < ev->n; ++k) {
        int i = ev->events[k];
        if (!shown[i])
            continue;
        if (prev >= 0)
            fprintf(f, "  e%d -> e%d [color=orangered, style=dashed, penwidth=2, constraint=false%s];\n", prev, i,
                    strcmp(kind, "data race") == 0 ? ", dir=both" : "");
        prev = i;
    }
    if (strcmp(kind, "lost wake-up") == 0 && ev->culprit) {
        int last = -1;
        for (int i = 0; i < event_count(); ++i)
            if (shown[i] && about_culprit(event_at(i)))
                last = i;
        const char *name = explore_name_of(ev->culprit);
        fprintf(f, "  never [label=\"the resume of %s\\nthat never came\", style=dashed, color=orangered, "
                   "fontcolor=orangered];\n", name ? name : "it");
        if (last >= 0)
            fprintf(f, "  e%d -> never [color=orangered, style=dashed, penwidth=2];\n", last);
    }
}

/* The failure's note (none for a schedule that passed) and the legend. */
static void legend(FILE *f, const char *kind, const char *message)
{
    char text[1400];
    if (message) {
        label_text(message, 70, text, sizeof text);
        fprintf(f, "  failure [shape=note, color=orangered, fontcolor=orangered, label=\"FAILED (%s):\\n%s\"];\n",
                kind, text);
    }
    fprintf(f, "  legend [shape=plaintext, fontname=\"sans-serif\", fontsize=9, label=<"
               "<TABLE BORDER=\"0\" CELLSPACING=\"2\">"
               "<TR><TD ALIGN=\"LEFT\"><FONT COLOR=\"gray40\">&#8212;&#8212;</FONT> po: program order</TD></TR>"
               "<TR><TD ALIGN=\"LEFT\"><FONT COLOR=\"red\">&#8212;&#8212;</FONT> rf: reads from (dashed: stale,"
               " a newer store existed)</TD></TR>"
               "<TR><TD ALIGN=\"LEFT\"><FONT COLOR=\"darkgreen\">&#8212;&#8212;</FONT> rf and sw: an acquire that"
               " synchronized with a release</TD></TR>"
               "<TR><TD ALIGN=\"LEFT\"><FONT COLOR=\"orangered\">- - -</FONT> the failure's events, in order</TD></TR>"
               "<TR><TD ALIGN=\"LEFT\"><FONT COLOR=\"purple\">purple</FONT>: an order weakened by --weaken</TD></TR>"
               "</TABLE>>];\n");
    if (message)
        fprintf(f, "  failure -> legend [style=invis];\n");
}

void graph_write(const char *path, const char *kind, const char *message)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        printf("explore: cannot write %s\n", path);
        return;
    }
    static int ids[4096];
    static bool shown[4096];
    int n = 0;
    for (int i = 0; i < event_count(); ++i)
        if ((shown[i] = drawn(i, kind)) && n < MAX_NODES)
            ids[n++] = i;
    /* In trace order: silent events sit between the lines around them. */
    for (int a = 1; a < n; ++a)
        for (int b = a; b > 0 && position(event_at(ids[b - 1])) > position(event_at(ids[b])); --b) {
            int t = ids[b];
            ids[b] = ids[b - 1];
            ids[b - 1] = t;
        }
    fprintf(f, "digraph execution {\n  newrank=true;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    columns(f, kind, ids, n);
    fprintf(f, "  { rank=same;");
    for (int t = 0; t < THREADS; ++t)
        for (int k = 0; k < n; ++k)
            if (event_at(ids[k])->thread == t) {
                fprintf(f, " h%d;", t);
                break;
            }
    fprintf(f, " }\n");
    for (int t = 0, prev = -1; t < THREADS; ++t)
        for (int k = 0; k < n; ++k)
            if (event_at(ids[k])->thread == t) {
                if (prev >= 0)
                    fprintf(f, "  h%d -> h%d [style=invis];\n", prev, t); /* columns in thread order */
                prev = t;
                break;
            }
    /* Time flows down across the columns too: each event below the one
     * before it in the trace, whichever thread made it. */
    for (int k = 1; k < n; ++k)
        if (event_at(ids[k - 1])->thread != event_at(ids[k])->thread)
            fprintf(f, "  e%d -> e%d [style=invis];\n", ids[k - 1], ids[k]);
    reads_from(f, shown);
    failure_edges(f, kind, shown);
    legend(f, kind, message);
    fprintf(f, "}\n");
    fclose(f);
}

/* A schedule that passed (a litmus test's outcome): its events and
 * relations, no failure. */
void explore_write_graph(const char *path) { graph_write(path, "", NULL); }
