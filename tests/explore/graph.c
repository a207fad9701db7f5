/*
 * A failing execution as an execution graph, in the style of herd7's: one
 * column per thread, the atomic operations (and the racing plain accesses)
 * as nodes, and the relations that decide what is allowed as edges:
 *
 *   po   program order (sequenced-before), down each column;
 *   rf   reads-from: from the store to the load or read-modify-write that
 *        read it ("rf, stale" when a newer store existed);
 *   sw   synchronizes-with: an rf edge whose acquire joined the release's
 *        clock (5.1.2.4p11), the only way across threads that orders;
 *   race the two conflicting plain accesses that nothing orders.
 *
 * Written as Graphviz (dot -Tsvg graph.dot > graph.svg).
 */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gnode {
    int slot;
    double at; /* position in the trace: its line, or just after one for a plain access */
    char id[16];
    char label[400];
    const char *style;
} gnode;

static const char *base(const char *file)
{
    const char *slash = file ? strrchr(file, '/') : NULL;
    return slash ? slash + 1 : file ? file : "?";
}

static int by_position(const void *a, const void *b)
{
    const gnode *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot - y->slot;
    return x->at < y->at ? -1 : x->at > y->at;
}

static void escape(const char *in, char *out, size_t size)
{
    size_t n = 0;
    for (; *in && n + 2 < size; ++in) {
        if (*in == '"' || *in == '\\')
            out[n++] = '\\';
        out[n++] = *in;
    }
    out[n] = '\0';
}

void model_write_graph(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        printf("explore: cannot write %s\n", path);
        return;
    }
    int n = model_nevents();
    const model_event *ev = model_events();
    gnode *nodes = calloc((size_t)n + 2, sizeof *nodes);
    if (!nodes) {
        fclose(f);
        return;
    }
    int count = 0;
    for (int i = 0; i < n; ++i) {
        gnode *g = &nodes[count++];
        g->slot = ev[i].slot;
        g->at = ev[i].trace_line;
        snprintf(g->id, sizeof g->id, "e%d", i);
        snprintf(g->label, sizeof g->label, "%d: %s:%d\\n%s", ev[i].trace_line, base(ev[i].file), ev[i].line,
                 ev[i].text);
        g->style = "";
    }
    model_access first, second;
    bool race = model_race_pair(&first, &second);
    if (race) {
        const model_access *pair[2] = {&first, &second};
        for (int k = 0; k < 2; ++k) {
            gnode *g = &nodes[count++];
            char site[200];
            escape(pair[k]->site, site, sizeof site);
            g->slot = pair[k]->slot;
            g->at = pair[k]->trace_line + (strstr(pair[k]->site, "(an atomic operation)") ? 1.0 : 0.5);
            snprintf(g->id, sizeof g->id, "a%d", k);
            snprintf(g->label, sizeof g->label, "%s (plain)\\n%s", pair[k]->write ? "write" : "read", site);
            g->style = ", color=orangered, fontcolor=orangered";
        }
    }
    qsort(nodes, (size_t)count, sizeof *nodes, by_position);

    fprintf(f, "digraph execution {\n  newrank=true;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
               "  edge [fontname=\"sans-serif\", fontsize=9];\n");
    for (int slot = 0; slot < MODEL_SLOTS; ++slot) {
        bool any = false;
        for (int i = 0; i < count; ++i)
            any |= nodes[i].slot == slot;
        if (!any)
            continue;
        char label[80];
        if (slot == MODEL_MAIN)
            snprintf(label, sizeof label, "main (setup, checks)");
        else
            snprintf(label, sizeof label, "T%d %s", slot, explore_thread_name(slot));
        fprintf(f, "  subgraph cluster_%d {\n    label=\"%s\"; style=rounded;\n", slot, label);
        const char *prev = NULL;
        for (int i = 0; i < count; ++i) {
            if (nodes[i].slot != slot)
                continue;
            fprintf(f, "    %s [label=\"%s\"%s];\n", nodes[i].id, nodes[i].label, nodes[i].style);
            if (prev)
                fprintf(f, "    %s -> %s [label=\"po\"];\n", prev, nodes[i].id);
            prev = nodes[i].id;
        }
        fprintf(f, "  }\n");
    }
    for (int i = 0; i < n; ++i) {
        if (ev[i].reads_from < 0)
            continue;
        if (ev[i].synchronizes)
            fprintf(f, "  e%d -> e%d [label=\"rf, sw\", color=darkgreen, fontcolor=darkgreen, penwidth=2, "
                       "constraint=false];\n", ev[i].reads_from, i);
        else if (ev[ev[i].reads_from].slot != ev[i].slot || ev[i].stale)
            fprintf(f, "  e%d -> e%d [label=\"%s\", color=red, fontcolor=red, constraint=false];\n",
                    ev[i].reads_from, i, ev[i].stale ? "rf (stale)" : "rf");
    }
    if (race)
        fprintf(f, "  a0 -> a1 [label=\"race: no hb\", color=orangered, fontcolor=orangered, style=dashed, "
                   "dir=both, constraint=false];\n");
    fprintf(f, "}\n");
    fclose(f);
    free(nodes);
}
