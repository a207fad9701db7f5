/*
 * A litmus file into a test (litmus.h), in herd7's C litmus syntax:
 *
 *     C MP+rel+acq                              the test's name
 *     "an optional description"
 *     { x = 0; y = 0; }                         initial values (herd's other
 *                                               forms too: [x] = 0; int x = 0;)
 *     P0(atomic_int* x, atomic_int* y) { ... }  threads: the parameters name the
 *     P1(atomic_int* x, int* y) { ... }         locations they use (each
 *                                               access atomic or plain as written)
 *     locations [1:r2; x;]                      optional: more to show
 *     exists (1:r0=1 /\ 1:r1=0)                 or ~exists, forall; none: forall (true)
 *
 * Anything the explorer cannot run exactly is refused here, with the line
 * and the reason, before a single schedule runs: a test half-run would give
 * a set of outcomes that means nothing.
 *
 * Recursive descent, one function per construct, in three files: this one
 * (the nodes, refusals, tokens, names and types they all use),
 * parse_thread.c (a thread's statements and expressions) and parse_test.c
 * (the frame: init, threads, the condition; litmus_parse). An error jumps
 * back to litmus_parse (longjmp), which frees what was built.
 */
#include "parse.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *new_node(parser *p, size_t size)
{
    node_block *b = calloc(1, sizeof *b + size);
    if (!b) {
        fputs("explore_litmus: out of memory\n", stderr);
        exit(2);
    }
    b->next = p->nodes;
    p->nodes = b;
    return b->data;
}

/* "path:line:column: reason" on stderr, then the parse is abandoned. */
static _Noreturn void refuse_at(parser *p, int line, int column, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s:%d:%d: ", p->t->path, line, column);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    longjmp(p->fail, 1);
}

_Noreturn void refuse(parser *p, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    refuse_at(p, line, lexer_first_column(&p->lx, line), fmt, ap);
}

_Noreturn void refuse_column(parser *p, int line, int column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    refuse_at(p, line, column, fmt, ap);
}

_Noreturn void refuse_here(parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    refuse_at(p, p->tok.line, p->tok.column, fmt, ap);
}

/* ---- tokens ------------------------------------------------------------------ */

void advance(parser *p)
{
    p->prev = p->tok;
    p->tok = lexer_next(&p->lx);
    if (p->tok.kind == TOK_ERROR)
        refuse_here(p, "unexpected character '%s'", p->tok.text);
}

bool is(const parser *p, const char *text)
{
    return (p->tok.kind == TOK_PUNCT || p->tok.kind == TOK_NAME) && strcmp(p->tok.text, text) == 0;
}

bool accept(parser *p, const char *text)
{
    if (!is(p, text))
        return false;
    advance(p);
    return true;
}

const char *describe(const token *t)
{
    return t->kind == TOK_EOF ? "the end of the file" : t->text;
}

void expect(parser *p, const char *text)
{
    if (!accept(p, text))
        refuse_here(p, "expected '%s', found '%s'", text, describe(&p->tok));
}

void expect_name(parser *p, char *buf, size_t size)
{
    if (p->tok.kind != TOK_NAME)
        refuse_here(p, "expected a name, found '%s'", describe(&p->tok));
    size_t n = strlen(p->tok.text);
    if (n >= size)
        refuse_here(p, "the name '%s' is longer than %zu characters", p->tok.text, size - 1);
    memcpy(buf, p->tok.text, n + 1);
    advance(p);
}

/* A constant: 42, -1, 0x10. */
int number(parser *p)
{
    bool minus = accept(p, "-");
    if (p->tok.kind != TOK_NUMBER)
        refuse_here(p, "expected a number, found '%s'", describe(&p->tok));
    long v = minus ? -p->tok.value : p->tok.value;
    if (v < INT_MIN || v > INT_MAX) /* a location's value is an int (exec.c) */
        refuse_here(p, "the value %s%s does not fit an int, explore_litmus's values", minus ? "-" : "",
               p->tok.text);
    if (v >= LITMUS_ADDRESS)
        refuse_here(p, "the value %s: explore_litmus keeps the ints from %d up for locations' addresses",
               p->tok.text, LITMUS_ADDRESS);
    advance(p);
    return (int)v;
}

/* ---- names: locations and registers --------------------------------------------- */

int find_location(const litmus_test *t, const char *name)
{
    for (int i = 0; i < t->nlocs; ++i)
        if (strcmp(t->locs[i].name, name) == 0)
            return i;
    return -1;
}

int add_location(parser *p, const char *name, int line)
{
    int i = find_location(p->t, name);
    if (i >= 0)
        return i;
    if (p->t->nlocs == LITMUS_MAX_LOCATIONS)
        refuse(p, line, "more than %d locations", LITMUS_MAX_LOCATIONS);
    i = p->t->nlocs++;
    p->t->locs[i] = (litmus_location){.kind = LOC_PLAIN, .line = 0};
    snprintf(p->t->locs[i].name, sizeof p->t->locs[i].name, "%s", name);
    return i;
}

int find_register(const litmus_thread *th, const char *name)
{
    for (int i = 0; i < th->nregs; ++i)
        if (strcmp(th->regs[i], name) == 0)
            return i;
    return -1;
}

/* A location the current thread names as a parameter, used as what wants.
 * herd's C decides atomicity per access, not per location (herd's CSem:
 * each access carries its own memory order or none; rc11.cat's data race,
 * dr = cnf \ (hb | hb^-1 | A*A), is about accesses): an atomic operation on
 * an int* parameter is atomic, a plain access to an atomic_int* is plain.
 * Only a mutex is a kind apart: wants says whether the access needs one. */
static int parameter(parser *p, const char *name, int line, int column, enum location_kind wants, const char *what)
{
    int loc = find_location(p->t, name);
    bool named = false;
    for (int i = 0; i < p->nparams; ++i)
        named |= p->params[i] == loc;
    if (loc < 0 || !named)
        refuse_column(p, line, column, "'%s' is not a parameter of P%d (a thread names the locations it uses)", name,
                      p->thread);
    litmus_location *l = &p->t->locs[loc];
    if ((wants == LOC_MUTEX) != (l->kind == LOC_MUTEX))
        refuse_column(p, line, column, "%s needs %s, and '%s' is %s", what,
                      wants == LOC_MUTEX ? "a mutex" : "an int location", name,
                      l->kind == LOC_MUTEX ? "a mutex" : "an int location");
    return loc;
}

int location_argument(parser *p, enum location_kind kind, const char *what)
{
    char name[LITMUS_MAX_NAME];
    int line = p->tok.line, column = p->tok.column;
    if (is(p, "&"))
        refuse_column(p, line, column, "%s takes the location's name, as herd's C does: x, not &x", what);
    line = p->tok.line, column = p->tok.column; /* (the name's) */
    expect_name(p, name, sizeof name);
    return parameter(p, name, line, column, kind, what);
}

/* herd's C accesses a location through a parameter (x) or through a
 * register holding its address (r2 after int *r2 =
 * atomic_load_explicit(x1, ...): herd's address dependency), whose
 * location is known only when it runs (exec.c). A register's name is
 * never a location's (declaration), so the name says which. */
int access_argument(parser *p, const char *what, int *via, char *via_name)
{
    *via = 0;
    if (p->tok.kind == TOK_NAME && p->thread >= 0) {
        const litmus_thread *th = &p->t->threads[p->thread];
        int reg = find_register(th, p->tok.text);
        if (reg >= 0) {
            *via = reg + 1;
            snprintf(via_name, LITMUS_MAX_NAME + 1, "*%s", th->regs[reg]);
            advance(p);
            return 0;
        }
    }
    return location_argument(p, LOC_ATOMIC, what);
}

/* A parameter's name where a value goes (atomic_store_explicit(x1, x0, ...)):
 * in herd's C a parameter is the location's address, so its value is that. */
int address_value(parser *p, const char *name, int line)
{
    int loc = parameter(p, name, line, lexer_first_column(&p->lx, line), LOC_ATOMIC, "a location's address as a value");
    return litmus_address(loc);
}

int stars(parser *p)
{
    int n = 0;
    while (accept(p, "*"))
        ++n;
    return n;
}

int order_argument(parser *p)
{
    /* The explorer's one table of names (order.c); herd's C spells them in full. */
    int order = explore_order_parse(p->tok.text);
    if (p->tok.kind == TOK_NAME && strncmp(p->tok.text, "memory_order_", strlen("memory_order_")) == 0 && order >= 0) {
        advance(p);
        return order;
    }
    refuse_here(p, "expected a memory order (memory_order_relaxed ... memory_order_seq_cst), found '%s'",
           describe(&p->tok));
}

/* ---- types ---------------------------------------------------------------------------- */

/* herd's 128-bit integers (its C lexer's types; values 128 bits wide
 * under Variant=S128). A location's value here is an int, and every
 * constant the file writes fits one (number()), so such a location holds
 * the values herd's does. */
static bool wide_integer(const parser *p)
{
    return is(p, "__int128") || is(p, "__int128_t") || is(p, "__uint128_t");
}

/* The words of a type, up to the name or the star: which kind of location
 * they make, or -1 for a type the explorer does not run. false: no type here. */
bool type_words(parser *p, int *kind)
{
    bool any = false, atomic = false, mutex = false, integer = false, other = false;
    for (;;) {
        if (is(p, "atomic_int") || is(p, "_Atomic") || is(p, "atomic_t")) /* atomic_t: Linux's atomic int */
            atomic = true;
        else if (is(p, "int") || wide_integer(p))
            integer = true;
        else if (is(p, "mtx_t") || is(p, "spinlock_t")) /* herd's lexer: both a mutex's type */
            mutex = true;
        else if (is(p, "volatile") || is(p, "const"))
            ;
        else if (is(p, "long") || is(p, "char") || is(p, "short") || is(p, "unsigned") || is(p, "intptr_t") ||
                 is(p, "uintptr_t") || is(p, "void") ||
                 strncmp(p->tok.text, "int", 3) == 0 || strncmp(p->tok.text, "uint", 4) == 0 ||
                 strncmp(p->tok.text, "__int", 5) == 0 || strncmp(p->tok.text, "__uint", 6) == 0)
            other = p->tok.kind == TOK_NAME;
        else
            break;
        any = true;
        advance(p);
    }
    *kind = other ? -1 : mutex ? LOC_MUTEX : atomic ? LOC_ATOMIC : integer ? LOC_PLAIN : -1;
    return any;
}

void litmus_free(litmus_test *t)
{
    for (int i = 0; i < LITMUS_MAX_THREADS; ++i) {
        free(t->source.code[i]);
        t->source.code[i] = NULL;
    }
    for (node_block *b = t->nodes, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    t->nodes = NULL;
}
