/*
 * A litmus file's frame: the test's name, the init block, the threads'
 * headers (their parameters name the locations they use), the final
 * condition, and the expected states stated in its comments; litmus_parse.
 */
#include "parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the frame: name, init, threads, condition ------------------------------------------------ */

/* ---- the parts as written (litmus_source) ------------------------------------------------ */

/* The text from start to end on one line: each run of blanks and line
 * breaks one space, none at either end. */
static void one_line(const char *start, const char *end, char *buf, size_t size)
{
    size_t n = 0;
    bool space = false;
    for (const char *q = start; q < end && n + 1 < size; ++q) {
        if (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') {
            space = n > 0;
            continue;
        }
        if (space && n + 2 < size)
            buf[n++] = ' ';
        space = false;
        buf[n++] = *q;
    }
    buf[n] = '\0';
}

/* A thread's code, from start to end (its braces' insides): its lines
 * that are not blank, their common indentation removed; malloc'd. */
static char *code_of(const char *start, const char *end)
{
    size_t indent = (size_t)-1, len = 0;
    for (const char *line = start; line < end;) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        eol = eol ? eol : end;
        size_t lead = strspn(line, " \t");
        if (line + lead < eol && !(eol - line == (long)lead + 1 && line[lead] == '\r') && lead < indent)
            indent = lead;
        len += (size_t)(eol - line) + 1;
        line = eol + 1;
    }
    char *out = malloc(len + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *line = start; line < end;) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        eol = eol ? eol : end;
        const char *stop = eol;
        while (stop > line && (stop[-1] == '\r'))
            --stop;
        if (line + strspn(line, " \t") < stop) { /* not blank */
            if (o > out)
                *o++ = '\n';
            memcpy(o, line + indent, (size_t)(stop - line - (long)indent));
            o += stop - line - (long)indent;
        }
        line = eol + 1;
    }
    *o = '\0';
    return out;
}

/* The value of a "KEYWORD VALUE" line (line: its start, blanks skipped),
 * trimmed, into buf if buf is still empty (the first such line counts). */
static bool keyword_line(const char *line, const char *keyword, char *buf, size_t size)
{
    size_t k = strlen(keyword);
    if (strncmp(line, keyword, k) != 0 || line[k] != ' ')
        return false;
    const char *s = line + k + strspn(line + k, " \t");
    size_t n = strcspn(s, "\r\n");
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        --n;
    if (!buf[0])
        snprintf(buf, size, "%.*s", (int)n, s);
    return true;
}

/* herd's Variant=S128: its values are 128 bits wide. Every value here is
 * an int, and every constant the file writes is one (number()), so the
 * test runs as herd runs it. Any other variant changes how herd runs the
 * test (its options for other architectures' models), so it is refused. */
static void variant(parser *p, int line, const char *value)
{
    char words[128];
    snprintf(words, sizeof words, "%s", value);
    for (char *w = strtok(words, ", \t"); w; w = strtok(NULL, ", \t"))
        if (strcmp(w, "S128") != 0 && strcmp(w, "s128") != 0)
            refuse(p, line, "herd's Variant '%s': explore_litmus runs C11 as the standard writes it (S128 alone: "
                            "128-bit values, which the test's int values fit)", w);
}

/* Lines KEY=VALUE between the name and the init block: herd's information
 * about the test (its splitter reads them; Hash=, Stable=, ...), none of
 * which changes what a C11 test does but Variant. */
static void info_lines(parser *p)
{
    while (p->tok.kind == TOK_NAME && !is(p, "{")) {
        char key[LITMUS_MAX_NAME], value[128];
        int line = p->tok.line;
        expect_name(p, key, sizeof key);
        if (!is(p, "="))
            refuse(p, line, "expected '{' or a line KEY=VALUE, found '%s'", key);
        lexer_line(&p->lx, value, sizeof value); /* the rest of the line, raw */
        if (strcmp(key, "Variant") == 0)
            variant(p, line, value);
        advance(p);
    }
}

/* &y or y in the init block: y's address (y a location, named here first or not). */
static int address_of(parser *p, int line)
{
    char name[LITMUS_MAX_NAME];
    expect_name(p, name, sizeof name);
    if (is(p, "("))
        refuse(p, line, "'%s(...)': an initial value is a number or a location's address (&y, y)", name);
    return litmus_address(add_location(p, name, line));
}

static void init_block(parser *p)
{
    expect(p, "{");
    while (!accept(p, "}")) {
        int line = p->tok.line, kind;
        if (accept(p, ";"))
            continue;
        bool typed = type_words(p, &kind);
        stars(p); /* int *x1 = &y;: a location holding an address, a value too (litmus.h) */
        if (p->tok.kind == TOK_NUMBER)
            refuse(p, line, "initial values of registers (T:r = v) are not supported: declare the register in "
                            "its thread");
        bool bracket = accept(p, "[");
        char name[LITMUS_MAX_NAME];
        expect_name(p, name, sizeof name);
        if (bracket)
            expect(p, "]");
        if (is(p, ":"))
            refuse(p, line, "initial values of registers (T:r = v) are not supported: declare the register in "
                            "its thread");
        if (typed && kind < 0)
            refuse(p, line, "'%s': explore_litmus runs int locations (atomic_int, int) and mutexes only", name);
        int loc = add_location(p, name, line);
        if (accept(p, "=")) {
            bool address = accept(p, "&") || p->tok.kind == TOK_NAME; /* &y, or herd's y: y's address */
            p->t->locs[loc].init = address ? address_of(p, line) : number(p);
            p->t->locs[loc].init_line = line;
        }
        if (!is(p, "}"))
            expect(p, ";");
    }
}

static void parameters(parser *p)
{
    expect(p, "(");
    p->nparams = 0;
    while (!accept(p, ")")) {
        int line = p->tok.line, kind;
        if (p->nparams && !accept(p, ","))
            refuse(p, line, "expected ',' or ')' between parameters");
        if (!type_words(p, &kind) && !is(p, "*"))
            refuse(p, line, "expected a parameter (atomic_int* x, int* y, mtx_t* m), found '%s'", describe(&p->tok));
        if (stars(p) == 0) /* atomic_int **x: a location holding an address (litmus.h) */
            refuse(p, line, "expected '*', found '%s'", describe(&p->tok));
        char name[LITMUS_MAX_NAME];
        expect_name(p, name, sizeof name);
        if (kind < 0)
            refuse(p, line, "'%s': explore_litmus runs int locations (atomic_int*, int*) and mutexes (mtx_t*) only",
                   name);
        int loc = add_location(p, name, line);
        litmus_location *l = &p->t->locs[loc];
        if (l->line && (l->kind == LOC_MUTEX) != (kind == LOC_MUTEX))
            refuse(p, line, "'%s' is %s here and %s at line %d", name, kind == LOC_MUTEX ? "a mutex" : "an int",
                   l->kind == LOC_MUTEX ? "a mutex" : "an int", l->line);
        /* atomic_int* in one thread and int* in another: one location, its
         * accesses atomic or plain as each is written (herd; parameter()). */
        if (!l->line) {
            l->kind = (enum location_kind)kind;
            l->line = line;
        }
        if (p->nparams == LITMUS_MAX_LOCATIONS)
            refuse(p, line, "too many parameters");
        p->params[p->nparams++] = loc;
    }
}

static bool thread_header(parser *p)
{
    if (is(p, "void"))
        advance(p);
    if (p->tok.kind != TOK_NAME || p->tok.text[0] != 'P' || !p->tok.text[1] ||
        strspn(p->tok.text + 1, "0123456789") != strlen(p->tok.text + 1))
        return false;
    long n = strlen(p->tok.text) > 4 ? LITMUS_MAX_THREADS : strtol(p->tok.text + 1, NULL, 10); /* digits, checked */
    if (n != p->t->nthreads)
        refuse_here(p, "expected thread P%d, found %s", p->t->nthreads, p->tok.text);
    if (n == LITMUS_MAX_THREADS)
        refuse_here(p, "more than %d threads: the explorer runs at most %d", LITMUS_MAX_THREADS,
               LITMUS_MAX_THREADS);
    advance(p);
    return true;
}

static void thread(parser *p)
{
    p->thread = p->t->nthreads++;
    parameters(p);
    expect(p, "{");
    const char *inside = p->prev.end;
    p->lx.code = true;
    p->t->threads[p->thread].body = block_body(p);
    p->lx.code = false;
    p->t->source.code[p->thread] = code_of(inside, p->prev.start); /* (to its closing brace) */
    p->thread = -1;
}

/* ---- the final condition ------------------------------------------------------------------------ */

static void show(parser *p, observed what)
{
    litmus_test *t = p->t;
    for (int i = 0; i < t->nshown; ++i)
        if (t->shown[i].thread == what.thread && t->shown[i].index == what.index)
            return;
    if (t->nshown == LITMUS_MAX_OBSERVED)
        refuse_here(p, "more than %d registers and locations in the condition", LITMUS_MAX_OBSERVED);
    t->shown[t->nshown++] = what;
}

/* T:r, [x] or x. */
static observed observable(parser *p)
{
    int line = p->tok.line;
    char name[LITMUS_MAX_NAME];
    if (p->tok.kind == TOK_NUMBER) {
        int thread = (int)p->tok.value;
        advance(p);
        expect(p, ":");
        expect_name(p, name, sizeof name);
        if (thread < 0 || thread >= p->t->nthreads)
            refuse(p, line, "%d:%s: there is no thread P%d", thread, name, thread);
        int reg = find_register(&p->t->threads[thread], name);
        if (reg < 0)
            refuse(p, line, "%d:%s: P%d has no register %s", thread, name, thread, name);
        return (observed){thread, reg};
    }
    bool bracket = accept(p, "[");
    expect_name(p, name, sizeof name);
    if (bracket)
        expect(p, "]");
    int loc = find_location(p->t, name);
    if (loc < 0)
        refuse(p, line, "'%s' is not a location of the test", name);
    if (p->t->locs[loc].kind == LOC_MUTEX)
        refuse(p, line, "'%s' is a mutex: its final state is not a value", name);
    if (!p->t->locs[loc].final_line)
        p->t->locs[loc].final_line = line; /* where its final value's read is cited (site.c) */
    return (observed){-1, loc};
}

static cond *new_cond(parser *p, enum cond_kind kind)
{
    cond *c = new_node(p, sizeof *c);
    c->kind = kind;
    return c;
}

static cond *disjunction(parser *p);

/* A number, or a location's name: its address (1:r2=x0, herd's C). */
static int condition_value(parser *p)
{
    if (p->tok.kind != TOK_NAME)
        return number(p);
    int loc = find_location(p->t, p->tok.text);
    if (loc < 0 || p->t->locs[loc].kind == LOC_MUTEX)
        refuse_here(p, "expected a number or a location, found '%s'", describe(&p->tok));
    advance(p);
    return litmus_address(loc);
}

static cond *atom(parser *p)
{
    if (accept(p, "~") || accept(p, "not")) {
        cond *c = new_cond(p, COND_NOT);
        c->a = atom(p);
        return c;
    }
    if (accept(p, "(")) {
        cond *c = disjunction(p);
        expect(p, ")");
        return c;
    }
    if (accept(p, "true"))
        return new_cond(p, COND_TRUE);
    if (accept(p, "false"))
        return new_cond(p, COND_FALSE);
    cond *c = new_cond(p, COND_EQ);
    c->what = observable(p);
    show(p, c->what);
    bool differs = accept(p, "!=");
    if (!differs)
        expect(p, "=");
    c->value = condition_value(p);
    if (!differs)
        return c;
    cond *n = new_cond(p, COND_NOT); /* herd reads x != v as ~(x = v) */
    n->a = c;
    return n;
}

static cond *conjunction(parser *p)
{
    cond *left = atom(p);
    while (accept(p, "/\\")) {
        cond *c = new_cond(p, COND_AND);
        c->a = left;
        c->b = atom(p);
        left = c;
    }
    return left;
}

static cond *disjunction(parser *p)
{
    cond *left = conjunction(p);
    while (accept(p, "\\/")) {
        cond *c = new_cond(p, COND_OR);
        c->a = left;
        c->b = conjunction(p);
        left = c;
    }
    return left;
}

/* locations [0:r2; x;]: shown in every state, like the condition's own. */
static void locations_clause(parser *p)
{
    expect(p, "[");
    while (!accept(p, "]")) {
        show(p, observable(p));
        if (!is(p, "]"))
            expect(p, ";");
    }
}

/* regions: x:PROP, y:DEV: herd's memory map, the region each location is
 * in, which a Bell model (herd's own language for GPU models) may read.
 * rc11.cat is a cat model and reads none, nor has C11 regions: read and
 * left out. */
static void regions_clause(parser *p)
{
    expect(p, ":");
    do {
        char name[LITMUS_MAX_NAME];
        expect_name(p, name, sizeof name);
        expect(p, ":");
        expect_name(p, name, sizeof name);
    } while (accept(p, ","));
}

static void final_condition(parser *p)
{
    if (accept(p, "regions"))
        regions_clause(p);
    if (accept(p, "locations"))
        locations_clause(p);
    int line = p->tok.line;
    if (p->tok.kind == TOK_EOF) { /* no condition: herd reads forall (true) */
        p->t->quantifier = FORALL;
        p->t->condition = new_cond(p, COND_TRUE);
        return;
    }
    const char *quantifier = p->tok.start;
    if (accept(p, "exists"))
        p->t->quantifier = EXISTS;
    else if (accept(p, "~") && accept(p, "exists"))
        p->t->quantifier = NOT_EXISTS;
    else if (accept(p, "forall"))
        p->t->quantifier = FORALL;
    else
        refuse(p, line, "expected the final condition: exists, ~exists or forall, found '%s'", describe(&p->tok));
    litmus_source *src = &p->t->source;
    snprintf(src->quantifier, sizeof src->quantifier, "%.*s", (int)(p->prev.end - quantifier), quantifier);
    size_t n = strcspn(p->tok.start, "\r\n"); /* the proposition: the rest of its line */
    while (n > 0 && (p->tok.start[n - 1] == ' ' || p->tok.start[n - 1] == '\t'))
        --n;
    snprintf(src->proposition, sizeof src->proposition, "%.*s", (int)n, p->tok.start);
    p->t->condition = disjunction(p);
    if (p->tok.kind != TOK_EOF)
        refuse_here(p, "unexpected '%s' after the condition", describe(&p->tok));
}

/* herd's order of a state's parts: registers by thread then name, then
 * locations by name (as strings: r10 before r2). */
static int compare_observed(const litmus_test *t, const observed *x, const observed *y)
{
    if ((x->thread < 0) != (y->thread < 0))
        return x->thread < 0 ? 1 : -1;
    if (x->thread != y->thread)
        return x->thread - y->thread;
    if (x->thread < 0)
        return strcmp(t->locs[x->index].name, t->locs[y->index].name);
    return strcmp(t->threads[x->thread].regs[x->index], t->threads[y->thread].regs[y->index]);
}

/* Sorts t->shown in that order (an insertion sort: a few entries, and the
 * comparison needs t, which qsort cannot pass). */
static void sort_observed(litmus_test *t)
{
    for (int i = 1; i < t->nshown; ++i) {
        observed o = t->shown[i];
        int j = i;
        for (; j > 0 && compare_observed(t, &t->shown[j - 1], &o) > 0; --j)
            t->shown[j] = t->shown[j - 1];
        t->shown[j] = o;
    }
}

/* ---- expected states, from the comments ------------------------------------------------------------ */

/* Lines "expect 1:r0=0; 1:r1=1;" anywhere in the file (inside a comment):
 * the final states the test's author states, in herd's format; lines
 * "expect-c11 ..." add the states C11 allows beyond RC11's (N1570's
 * release sequences), for --model c11; a line "expect-counts Positive: P
 * Negative: N", herd7's count of executions under RC11, which a state set
 * alone does not show (an execution missed whose state another reaches). */
static void expected_states(litmus_test *t, const char *source)
{
    t->expected_counts[0] = t->expected_counts[1] = -1;
    for (const char *line = source; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        line += strspn(line, " \t");
        litmus_source *src = &t->source;
        if (keyword_line(line, "herd-differs", src->herd_differs, sizeof src->herd_differs) ||
            keyword_line(line, "herd-counts-differ", src->herd_counts_differ, sizeof src->herd_counts_differ) ||
            keyword_line(line, "herd-skip", src->herd_skip, sizeof src->herd_skip))
            continue;
        keyword_line(line, "expect-counts", src->expect_counts, sizeof src->expect_counts);
        if (strncmp(line, "expect-counts ", 14) == 0) { /* herd7's counts of executions: --check compares them */
            if (sscanf(line + 14, " Positive: %ld Negative: %ld", &t->expected_counts[0], &t->expected_counts[1]) != 2)
                t->expected_counts[0] = t->expected_counts[1] = -2; /* malformed: --check says so */
            continue;
        }
        bool c11 = strncmp(line, "expect-c11 ", 11) == 0;
        if ((!c11 && strncmp(line, "expect ", 7) != 0) || t->nexpected == LITMUS_MAX_EXPECTED)
            continue;
        const char *s = line + (c11 ? 11 : 7);
        s += strspn(s, " \t");
        size_t n = strcspn(s, "\r\n");
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            --n;
        t->expected_c11[t->nexpected] = c11;
        snprintf(t->expected[t->nexpected++], sizeof t->expected[0], "%.*s", (int)n, s);
    }
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (!bigger)
                free(buf);
            buf = bigger;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* The whole file; an error jumps back here (refuse). */
static bool parse_source(litmus_test *t, const char *source)
{
    parser p = {.t = t, .thread = -1};
    lexer_init(&p.lx, source);
    if (setjmp(p.fail)) {
        t->nodes = p.nodes;
        litmus_free(t);
        return false;
    }
    advance(&p);
    if (!is(&p, "C"))
        refuse(&p, p.tok.line, "not a C litmus test (the first word is '%s', not C)", describe(&p.tok));
    lexer_line(&p.lx, t->name, sizeof t->name);
    if (!t->name[0])
        refuse(&p, p.tok.line, "the test has no name (C NAME)");
    advance(&p);
    if (p.tok.kind == TOK_STRING) {
        snprintf(t->source.about, sizeof t->source.about, "%.*s", (int)(p.tok.end - p.tok.start - 2),
                 p.tok.start + 1);
        advance(&p);
    }
    info_lines(&p);
    const char *open = p.tok.start;
    init_block(&p);
    one_line(open, p.prev.end, t->source.init, sizeof t->source.init);
    while (thread_header(&p))
        thread(&p);
    if (t->nthreads == 0)
        refuse(&p, p.tok.line, "expected a thread P0(...) { ... }, found '%s'", describe(&p.tok));
    final_condition(&p);
    sort_observed(t);
    expected_states(t, source);
    t->nodes = p.nodes;
    return true;
}

bool litmus_parse(const char *path, litmus_test *t)
{
    *t = (litmus_test){.path = path};
    char *source = read_file(path);
    if (!source) {
        fprintf(stderr, "%s: cannot read it\n", path);
        return false;
    }
    bool ok = parse_source(t, source);
    free(source);
    return ok;
}
