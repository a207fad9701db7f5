/*
 * The execution graph in SVG, drawn by the explorer itself: graph.c has
 * already placed every box (a column per thread, a row per step of the
 * trace); here each box, label and note is drawn where it was placed, and
 * each edge is routed by three rules, the ones a reader of herd7's and
 * Graphviz's drawings expects:
 *
 *   - between two columns, or to an initial value: a straight line from
 *     border to border;
 *   - down a column past boxes in between (a modification order, a stale
 *     read's rf): a curve out of the boxes' side and back, so that it does
 *     not cross the boxes it skips;
 *   - two or more edges joining the same two boxes (rf one way, fr the
 *     other; a cycle's edges): curves bowed apart, so that each is seen.
 *
 * Units are graph.c's points, y down; the SVG says its size in points, as
 * Graphviz's does, so that both draw at the same size on a page.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "report/graph_svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FONT 12.0   /* points: a box's text, as graph.c lays it out */
#define CHAR_W 7.2  /* points: a monospace character at FONT */
#define LINE_H 15.0 /* points: a line of text at FONT */
#define PAD_H 10.0
#define MARGIN 4.0  /* points around the drawing */
#define BULGE 22.0  /* points: how far a curve around a column's boxes leaves their side */
#define BOW 16.0    /* points: how far apart two edges between the same boxes bow */

static const char *const MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace";
static const char *const SANS = "DejaVu Sans, Helvetica, Arial, sans-serif";

/* Graphviz's colour names that graph.c uses, in SVG's: gray35 and gray40
 * are not SVG colours, sienna, darkgreen and the rest are. */
static const char *color_of(const char *name)
{
    if (strcmp(name, "gray35") == 0)
        return "#595959";
    if (strcmp(name, "gray40") == 0)
        return "#666666";
    return name;
}

static void grow(svg_canvas *c, double x, double y)
{
    c->x0 = fmin(c->x0, x);
    c->y0 = fmin(c->y0, y);
    c->x1 = fmax(c->x1, x);
    c->y1 = fmax(c->y1, y);
}

/* Text as XML character data: the five characters XML reserves escaped. */
static void put_text(FILE *f, const char *s, size_t n)
{
    for (size_t k = 0; k < n && s[k]; ++k)
        switch (s[k]) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(s[k], f);
        }
}

/* Characters, not bytes: a UTF-8 continuation byte takes no room. */
static int width_of(const char *s, size_t n)
{
    int w = 0;
    for (size_t k = 0; k < n && s[k]; ++k)
        w += ((unsigned char)s[k] & 0xC0) != 0x80;
    return w;
}

bool svg_begin(svg_canvas *c, double label_size)
{
    *c = (svg_canvas){.x0 = INFINITY, .y0 = INFINITY, .x1 = -INFINITY, .y1 = -INFINITY, .label_size = label_size};
    c->edges = open_memstream(&c->edges_text, &c->edges_len);
    c->nodes = open_memstream(&c->nodes_text, &c->nodes_len);
    c->labels = open_memstream(&c->labels_text, &c->labels_len);
    if (c->edges && c->nodes && c->labels)
        return true;
    FILE *open[] = {c->edges, c->nodes, c->labels};
    for (int k = 0; k < 3; ++k)
        if (open[k])
            fclose(open[k]);
    free(c->edges_text);
    free(c->nodes_text);
    free(c->labels_text);
    return false;
}

static const char *dashes(const char *style)
{
    if (style && strstr(style, "dashed"))
        return " stroke-dasharray=\"5,2\"";
    if (style && strstr(style, "dotted"))
        return " stroke-dasharray=\"1,3\"";
    return "";
}

static double stroke(const char *style, double pen)
{
    double w = pen > 0 ? pen : 1;
    return style && strstr(style, "bold") && w < 2 ? 2 : w;
}

/* The widest line of text, in characters. */
static int longest_line(const char *text)
{
    int longest = 0;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        if (width_of(p, n) > longest)
            longest = width_of(p, n);
        p += n + (p[n] == '\n');
    }
    return longest;
}

/* Lines of text from the left x, the first under the top y; returns the next row. */
static int lines(FILE *f, double left, double top, int row, const char *text, const char *color)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" fill=\"%s\" xml:space=\"preserve\">", left,
                top + row * LINE_H + LINE_H * 0.75, color_of(color));
        put_text(f, p, n);
        fputs("</text>", f);
        ++row;
        p += n + (p[n] == '\n');
    }
    return row;
}

/* A box, its text a block of left-aligned lines centred in it (as
 * Graphviz draws graph.c's labels), its source line under the text. */
void svg_box(svg_canvas *c, const char *id, svg_rect r, const char *color, const char *style, double pen, int line,
             const char *text, const char *where)
{
    FILE *f = c->nodes;
    fprintf(f, "<g id=\"%s\" class=\"node", id);
    if (line > 0)
        fprintf(f, " line-%d", line); /* the trace line it is, for a page's stepper */
    fprintf(f, "\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"%s fill=\"white\" stroke=\"%s\" "
               "stroke-width=\"%g\"%s/>",
            r.x - r.w / 2, r.y - r.h / 2, r.w, r.h, style && strstr(style, "rounded") ? " rx=\"6\"" : "",
            color_of(color), stroke(style, pen), dashes(style));
    fprintf(f, "<g font-family=\"%s\" font-size=\"%g\">", MONO, FONT);
    bool below = where && where[0];
    int count = 1, widest = longest_line(text);
    for (const char *p = text; *p; ++p)
        count += *p == '\n';
    if (below) {
        count += 1;
        widest = longest_line(where) > widest ? longest_line(where) : widest;
    }
    double left = r.x - widest * CHAR_W / 2, top = r.y - count * LINE_H / 2;
    int row = lines(f, left, top, 0, text, color);
    if (below)
        lines(f, left, top, row, where, "gray35");
    fputs("</g></g>\n", f);
    grow(c, r.x - r.w / 2, r.y - r.h / 2);
    grow(c, r.x + r.w / 2, r.y + r.h / 2);
}

void svg_label(svg_canvas *c, double x, double y, double size, const char *text)
{
    /* (a halo: an edge from an initial value passes behind a column's name) */
    fprintf(c->nodes, "<text x=\"%.2f\" y=\"%.2f\" font-family=\"%s\" font-size=\"%g\" text-anchor=\"middle\" "
                      "stroke=\"white\" stroke-width=\"4\" paint-order=\"stroke\">", x, y + size * 0.35, SANS, size);
    put_text(c->nodes, text, strlen(text));
    fputs("</text>\n", c->nodes);
    double w = width_of(text, strlen(text)) * size * 0.62;
    grow(c, x - w / 2, y - size / 2);
    grow(c, x + w / 2, y + size / 2);
}

/* A note: a box with its corner folded, its text left-aligned. */
void svg_note(svg_canvas *c, svg_rect r, const char *color, const char *text)
{
    double x0 = r.x - r.w / 2, y0 = r.y - r.h / 2, x1 = r.x + r.w / 2, y1 = r.y + r.h / 2, fold = 8;
    const char *ink = color_of(color);
    fprintf(c->nodes, "<g class=\"note\"><path d=\"M%.2f,%.2f H%.2f L%.2f,%.2f V%.2f H%.2f Z M%.2f,%.2f V%.2f "
                      "H%.2f\" fill=\"white\" stroke=\"%s\"/>",
            x0, y0, x1 - fold, x1, y0 + fold, y1, x0, x1 - fold, y0, y0 + fold, x1, ink);
    fprintf(c->nodes, "<g font-family=\"%s\" font-size=\"%g\">", MONO, FONT);
    lines(c->nodes, x0 + 7, y0 + PAD_H / 2 + 3, 0, text, color);
    fputs("</g></g>\n", c->nodes);
    grow(c, x0, y0);
    grow(c, x1, y1);
}

/* A row of the legend: its mark (XML already: "&#8212;&#8212;") in the
 * kind's colour, then what it is; x is its left end. */
void svg_legend_row(svg_canvas *c, double x, double y, const char *color, const char *mark, const char *text)
{
    fprintf(c->nodes, "<text x=\"%.2f\" y=\"%.2f\" font-family=\"%s\" font-size=\"%g\"><tspan fill=\"%s\">%s</tspan> ",
            x, y + FONT * 0.35, SANS, FONT, color_of(color), mark);
    put_text(c->nodes, text, strlen(text));
    fputs("</text>\n", c->nodes);
    grow(c, x, y - FONT / 2);
    grow(c, x + (width_of(text, strlen(text)) + 4) * FONT * 0.62, y + FONT / 2);
}

/* ---- edges ------------------------------------------------------------------ */

typedef struct point {
    double x, y;
} point;

/* Where the ray from r's centre towards p leaves r. */
static point border(svg_rect r, point p)
{
    double dx = p.x - r.x, dy = p.y - r.y;
    if (dx == 0 && dy == 0)
        return (point){r.x, r.y};
    double tx = dx != 0 ? (r.w / 2) / fabs(dx) : INFINITY, ty = dy != 0 ? (r.h / 2) / fabs(dy) : INFINITY;
    double t = fmin(tx, ty);
    return (point){r.x + dx * t, r.y + dy * t};
}

/* An arrowhead with its tip at tip, pointing along (ux, uy), a unit vector;
 * returns where the line should end (the middle of its base). */
static point arrow(FILE *f, point tip, double ux, double uy, double pen, const char *ink)
{
    double len = 7 + 1.5 * pen, half = 3 + pen;
    point base = {tip.x - ux * len, tip.y - uy * len};
    fprintf(f, "<polygon points=\"%.2f,%.2f %.2f,%.2f %.2f,%.2f\" fill=\"%s\" stroke=\"none\"/>", tip.x, tip.y,
            base.x - uy * half, base.y + ux * half, base.x + uy * half, base.y - ux * half, ink);
    return base;
}

static void unit(double dx, double dy, double *ux, double *uy)
{
    double n = hypot(dx, dy);
    *ux = n > 0 ? dx / n : 0;
    *uy = n > 0 ? dy / n : 1;
}

static void edge_text(svg_canvas *c, point at, const char *anchor, const char *ink, double size, bool bold,
                      const char *text)
{
    /* a white halo under the letters: a label that crosses a line stays legible */
    fprintf(c->labels, "<text x=\"%.2f\" y=\"%.2f\" font-family=\"%s\" font-size=\"%g\"%s text-anchor=\"%s\" fill=\"%s\" "
                      "stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">",
            at.x, at.y + size * 0.35, SANS, size, bold ? " font-weight=\"bold\"" : "", anchor, ink);
    put_text(c->labels, text, strlen(text));
    fputs("</text>\n", c->labels);
    double w = width_of(text, strlen(text)) * size * 0.62;
    double left = strcmp(anchor, "start") == 0 ? at.x : strcmp(anchor, "end") == 0 ? at.x - w : at.x - w / 2;
    grow(c, left, at.y - size / 2);
    grow(c, left + w, at.y + size / 2);
}

/* Down a column past the boxes between: out of the side, and back in. */
static void around(svg_canvas *c, const svg_edge *e, const char *ink, double w)
{
    int s = e->side;
    double reach = BULGE + BOW * e->nth;
    point a = {e->from.x + s * e->from.w / 2, e->from.y}, b = {e->to.x + s * e->to.w / 2, e->to.y};
    point ca = {a.x + s * reach, a.y}, cb = {b.x + s * reach, b.y};
    double ux = -s, uy = 0; /* the head comes back in, sideways */
    point end = arrow(c->edges, b, ux, uy, w, ink), start = a;
    if (e->both)
        start = arrow(c->edges, a, -s * 1.0, 0, w, ink);
    fprintf(c->edges, "<path d=\"M%.2f,%.2f C%.2f,%.2f %.2f,%.2f %.2f,%.2f\" fill=\"none\" stroke=\"%s\" "
                      "stroke-width=\"%g\"%s/>",
            start.x, start.y, ca.x, ca.y, cb.x, cb.y, end.x, end.y, ink, w, dashes(e->style));
    grow(c, ca.x + s * 2, ca.y);
    point mid = {a.x + s * reach * 0.75, (a.y + b.y) / 2};
    if (e->label)
        edge_text(c, (point){mid.x + s * 3, mid.y}, s > 0 ? "start" : "end", ink, c->label_size, false, e->label);
    if (e->head)
        edge_text(c, (point){b.x + s * 12, b.y - 10}, s > 0 ? "start" : "end", ink, 13, true, e->head);
}

/* The point at t of the quadratic curve a, ctl, b. */
static point at(point a, point ctl, point b, double t)
{
    double u = 1 - t;
    return (point){u * u * a.x + 2 * u * t * ctl.x + t * t * b.x, u * u * a.y + 2 * u * t * ctl.y + t * t * b.y};
}

static bool inside(svg_rect r, point p)
{
    return fabs(p.x - r.x) < r.w / 2 + 2 && fabs(p.y - r.y) < r.h / 2 + 2;
}

static bool same(svg_rect a, svg_rect b) { return a.x == b.x && a.y == b.y && a.w == b.w && a.h == b.h; }

/* Whether the curve from e's box to its other box through ctl crosses a
 * third box (sampled: boxes are tens of points, the samples a few apart). */
static bool blocked(const svg_edge *e, point ctl)
{
    point a = border(e->from, ctl), b = border(e->to, ctl);
    for (int k = 0; k < e->nboxes; ++k) {
        svg_rect r = e->boxes[k];
        if (same(r, e->from) || same(r, e->to))
            continue;
        for (int s = 1; s < 40; ++s)
            if (inside(r, at(a, ctl, b, s / 40.0)))
                return true;
    }
    return false;
}

/* Between two boxes apart: straight; bowed when others join the same two
 * boxes (each its own bow) or when a box is in the way (the least bow,
 * either side, that clears every box). */
static void across(svg_canvas *c, const svg_edge *e, const char *ink, double w)
{
    point pa = {e->from.x, e->from.y}, pb = {e->to.x, e->to.y};
    point mid = {(pa.x + pb.x) / 2, (pa.y + pb.y) / 2};
    double nx, ny; /* the normal of the line, the same for both directions of a pair */
    bool flip = pa.x > pb.x || (pa.x == pb.x && pa.y > pb.y);
    unit(flip ? pa.y - pb.y : pb.y - pa.y, flip ? pb.x - pa.x : pa.x - pb.x, &nx, &ny);
    double bow = e->of > 1 ? (e->nth - (e->of - 1) / 2.0) * BOW : 0, tried = bow;
    point ctl = {mid.x + nx * bow * 2, mid.y + ny * bow * 2};
    for (int k = 1; k <= 24 && blocked(e, ctl); ++k) {
        tried = bow + (k % 2 ? 1 : -1) * ((k + 1) / 2) * 12.0;
        ctl = (point){mid.x + nx * tried * 2, mid.y + ny * tried * 2};
    }
    if (blocked(e, ctl)) /* nothing clears: the edge's own bow, across */
        ctl = (point){mid.x + nx * bow * 2, mid.y + ny * bow * 2};
    else
        bow = tried;
    point a = border(e->from, ctl), b = border(e->to, ctl);
    double ux, uy;
    unit(b.x - ctl.x, b.y - ctl.y, &ux, &uy);
    point end = arrow(c->edges, b, ux, uy, w, ink), start = a;
    if (e->both) {
        double vx, vy;
        unit(a.x - ctl.x, a.y - ctl.y, &vx, &vy);
        start = arrow(c->edges, a, vx, vy, w, ink);
    }
    fprintf(c->edges, "<path d=\"M%.2f,%.2f Q%.2f,%.2f %.2f,%.2f\" fill=\"none\" stroke=\"%s\" stroke-width=\"%g\"%s/>",
            start.x, start.y, ctl.x, ctl.y, end.x, end.y, ink, w, dashes(e->style));
    grow(c, at(a, ctl, b, 0.5).x, at(a, ctl, b, 0.5).y);
    /* the label beside the curve, on its outer side, a third of the way
     * from its tail: two edges that cross at their middles (rf each way
     * between two columns, SB's) keep their labels apart */
    double side = bow < 0 ? -1 : 1;
    point on = at(a, ctl, b, 0.35);
    if (e->label)
        edge_text(c, (point){on.x + nx * 8 * side, on.y + ny * 8 * side}, "middle", ink, c->label_size, false,
                  e->label);
    if (e->head) { /* near its head, but never past the middle of a short edge */
        double len = hypot(b.x - a.x, b.y - a.y), back = fmin(24, len / 2);
        point near = at(a, ctl, b, len > 0 ? 1 - back / len : 0.5);
        edge_text(c, (point){near.x + nx * 12 * side, near.y + ny * 12 * side}, "middle", ink, 13, true, e->head);
    }
}

void svg_draw_edge(svg_canvas *c, const svg_edge *e)
{
    const char *ink = color_of(e->color);
    double w = stroke(e->style, e->pen);
    /* its ends and relation as data, for a reader's tools (and svg_check.py) */
    fprintf(c->edges, "<g class=\"edge\" data-from=\"%s\" data-to=\"%s\" data-label=\"", e->from_id, e->to_id);
    const char *name = e->label ? e->label : e->head ? e->head : "";
    put_text(c->edges, name, strlen(name));
    fputs("\">", c->edges);
    if (e->side)
        around(c, e, ink, w);
    else
        across(c, e, ink, w);
    fputs("</g>\n", c->edges);
}

void svg_end(svg_canvas *c, FILE *out)
{
    fclose(c->edges);
    fclose(c->nodes);
    fclose(c->labels);
    if (!(c->x1 >= c->x0)) /* nothing drawn */
        c->x0 = c->y0 = c->x1 = c->y1 = 0;
    double x = c->x0 - MARGIN, y = c->y0 - MARGIN, w = c->x1 - c->x0 + 2 * MARGIN, h = c->y1 - c->y0 + 2 * MARGIN;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0fpt\" height=\"%.0fpt\" "
                 "viewBox=\"%.2f %.2f %.2f %.2f\">\n<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                 "fill=\"white\"/>\n",
            ceil(w), ceil(h), x, y, w, h, x, y, w, h);
    fwrite(c->edges_text, 1, c->edges_len, out);
    fwrite(c->nodes_text, 1, c->nodes_len, out);
    fwrite(c->labels_text, 1, c->labels_len, out);
    fputs("</svg>\n", out);
    free(c->edges_text);
    free(c->nodes_text);
    free(c->labels_text);
}
