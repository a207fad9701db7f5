/*
 * A litmus file into a test (litmus.h), in herd7's C litmus syntax:
 *
 *     C MP+rel+acq                              the test's name
 *     "an optional description"
 *     { x = 0; y = 0; }                         initial values (herd's other
 *                                               forms too: [x] = 0; int x = 0;)
 *     P0(atomic_int* x, atomic_int* y) { ... }  threads: the parameters name the
 *     P1(atomic_int* x, int* y) { ... }         locations they use, and say
 *                                               which are atomic
 *     locations [1:r2; x;]                      optional: more to show
 *     exists (1:r0=1 /\ 1:r1=0)                 or ~exists, forall; none: forall (true)
 *
 * Anything the explorer cannot run exactly is refused here, with the line
 * and the reason, before a single schedule runs: a test half-run would give
 * a set of outcomes that means nothing.
 *
 * Recursive descent, one function per construct; an error jumps back to
 * litmus_parse (longjmp), which frees what was built.
 */
#include "litmus.h"
#include "lexer.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every node of a test's tree, to free them together. */
typedef struct node_block {
    struct node_block *next;
    max_align_t data[];
} node_block;

typedef struct parser {
    lexer lx;
    token tok;  /* the current token */
    litmus_test *t;
    int thread; /* the thread being read, -1 outside */
    int params[LITMUS_MAX_LOCATIONS]; /* of the current thread: which locations it names */
    int nparams;
    jmp_buf fail;
} parser;

static node_block *g_blocks; /* the nodes of the test being parsed (one test at a time) */

static void *new_node(size_t size)
{
    node_block *b = calloc(1, sizeof *b + size);
    if (!b) {
        fputs("explore_litmus: out of memory\n", stderr);
        exit(2);
    }
    b->next = g_blocks;
    g_blocks = b;
    return b->data;
}

static _Noreturn void refuse(parser *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static _Noreturn void refuse(parser *p, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%d: ", p->t->path, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    longjmp(p->fail, 1);
}

/* ---- tokens ------------------------------------------------------------------ */

static void advance(parser *p)
{
    p->tok = lexer_next(&p->lx);
    if (p->tok.kind == TOK_ERROR)
        refuse(p, p->tok.line, "unexpected character '%s'", p->tok.text);
}

static bool is(const parser *p, const char *text)
{
    return (p->tok.kind == TOK_PUNCT || p->tok.kind == TOK_NAME) && strcmp(p->tok.text, text) == 0;
}

static bool accept(parser *p, const char *text)
{
    if (!is(p, text))
        return false;
    advance(p);
    return true;
}

static const char *describe(const token *t)
{
    return t->kind == TOK_EOF ? "the end of the file" : t->text;
}

static void expect(parser *p, const char *text)
{
    if (!accept(p, text))
        refuse(p, p->tok.line, "expected '%s', found '%s'", text, describe(&p->tok));
}

static void expect_name(parser *p, char *buf, size_t size)
{
    if (p->tok.kind != TOK_NAME)
        refuse(p, p->tok.line, "expected a name, found '%s'", describe(&p->tok));
    size_t n = strlen(p->tok.text);
    if (n >= size)
        refuse(p, p->tok.line, "the name '%s' is longer than %zu characters", p->tok.text, size - 1);
    memcpy(buf, p->tok.text, n + 1);
    advance(p);
}

/* A constant: 42, -1, 0x10. */
static int number(parser *p)
{
    bool minus = accept(p, "-");
    if (p->tok.kind != TOK_NUMBER)
        refuse(p, p->tok.line, "expected a number, found '%s'", describe(&p->tok));
    long v = p->tok.value;
    advance(p);
    return (int)(minus ? -v : v);
}

/* ---- names: locations and registers --------------------------------------------- */

static int find_location(const litmus_test *t, const char *name)
{
    for (int i = 0; i < t->nlocs; ++i)
        if (strcmp(t->locs[i].name, name) == 0)
            return i;
    return -1;
}

static int add_location(parser *p, const char *name, int line)
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

static int find_register(const litmus_thread *th, const char *name)
{
    for (int i = 0; i < th->nregs; ++i)
        if (strcmp(th->regs[i], name) == 0)
            return i;
    return -1;
}

/* A location the current thread names as a parameter, of the kind wanted. */
static int parameter(parser *p, const char *name, int line, enum location_kind kind, const char *what)
{
    static const char *const kinds[] = {"an atomic location (atomic_int *)", "a plain location (int *)",
                                        "a mutex (mtx_t *)"};
    int loc = find_location(p->t, name);
    bool named = false;
    for (int i = 0; i < p->nparams; ++i)
        named |= p->params[i] == loc;
    if (loc < 0 || !named)
        refuse(p, line, "'%s' is not a parameter of P%d (a thread names the locations it uses)", name, p->thread);
    if (p->t->locs[loc].kind != kind)
        refuse(p, line, "%s needs %s, and '%s' is %s: the explorer keeps a location atomic or plain, as C11 does", what,
               kinds[kind], name, kinds[p->t->locs[loc].kind]);
    return loc;
}

static int location_argument(parser *p, enum location_kind kind, const char *what)
{
    char name[LITMUS_MAX_NAME];
    int line = p->tok.line;
    if (is(p, "&"))
        refuse(p, line, "%s takes the location's name, as herd's C does: x, not &x", what);
    expect_name(p, name, sizeof name);
    return parameter(p, name, line, kind, what);
}

static int order_argument(parser *p)
{
    static const char *const names[] = {"memory_order_relaxed", "memory_order_consume", "memory_order_acquire",
                                        "memory_order_release", "memory_order_acq_rel", "memory_order_seq_cst"};
    for (int i = 0; i < 6; ++i)
        if (is(p, names[i])) {
            if (i == ORDER_SEQ_CST && !p->t->sc_line)
                p->t->sc_line = p->tok.line;
            advance(p);
            return i;
        }
    refuse(p, p->tok.line, "expected a memory order (memory_order_relaxed ... memory_order_seq_cst), found '%s'",
           describe(&p->tok));
}

/* ---- types ---------------------------------------------------------------------------- */

/* The words of a type, up to the name or the star: which kind of location
 * they make, or -1 for a type the explorer does not run. false: no type here. */
static bool type_words(parser *p, int *kind)
{
    bool any = false, atomic = false, mutex = false, integer = false, other = false;
    for (;;) {
        if (is(p, "atomic_int") || is(p, "_Atomic"))
            atomic = true;
        else if (is(p, "int"))
            integer = true;
        else if (is(p, "mtx_t"))
            mutex = true;
        else if (is(p, "volatile") || is(p, "const"))
            ;
        else if (is(p, "long") || is(p, "char") || is(p, "short") || is(p, "unsigned") || is(p, "intptr_t") ||
                 is(p, "uintptr_t") || is(p, "atomic_t") || is(p, "spinlock_t") || is(p, "void") ||
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

/* ---- expressions ------------------------------------------------------------------------ */

static expr *expression(parser *p);

static expr *new_expr(enum expr_kind kind, int line)
{
    expr *e = new_node(sizeof *e);
    e->kind = kind;
    e->line = line;
    return e;
}

/* The atomic calls that give a value, explicit and implicit (seq_cst). */
typedef struct call_form {
    const char *name;
    enum expr_kind kind;
    enum rmw_op rmw;
    bool cas, weak, explicit_order;
} call_form;

static const call_form g_calls[] = {
    {"atomic_load_explicit", EXPR_LOAD, 0, false, false, true},
    {"atomic_load", EXPR_LOAD, 0, false, false, false},
    {"atomic_exchange_explicit", EXPR_RMW, RMW_XCHG, false, false, true},
    {"atomic_exchange", EXPR_RMW, RMW_XCHG, false, false, false},
    {"atomic_fetch_add_explicit", EXPR_RMW, RMW_ADD, false, false, true},
    {"atomic_fetch_add", EXPR_RMW, RMW_ADD, false, false, false},
    {"atomic_fetch_sub_explicit", EXPR_RMW, RMW_SUB, false, false, true},
    {"atomic_fetch_sub", EXPR_RMW, RMW_SUB, false, false, false},
    {"atomic_fetch_or_explicit", EXPR_RMW, RMW_OR, false, false, true},
    {"atomic_fetch_or", EXPR_RMW, RMW_OR, false, false, false},
    {"atomic_fetch_and_explicit", EXPR_RMW, RMW_AND, false, false, true},
    {"atomic_fetch_and", EXPR_RMW, RMW_AND, false, false, false},
    {"atomic_fetch_xor_explicit", EXPR_RMW, RMW_XOR, false, false, true},
    {"atomic_fetch_xor", EXPR_RMW, RMW_XOR, false, false, false},
    {"atomic_compare_exchange_strong_explicit", EXPR_CAS, 0, true, false, true},
    {"atomic_compare_exchange_strong", EXPR_CAS, 0, true, false, false},
    {"atomic_compare_exchange_weak_explicit", EXPR_CAS, 0, true, true, true},
    {"atomic_compare_exchange_weak", EXPR_CAS, 0, true, true, false},
};

static const call_form *call_named(const char *name)
{
    for (size_t i = 0; i < sizeof g_calls / sizeof g_calls[0]; ++i)
        if (strcmp(g_calls[i].name, name) == 0)
            return &g_calls[i];
    return NULL;
}

static int implicit_order(parser *p, int line)
{
    if (!p->t->sc_line)
        p->t->sc_line = line;
    return ORDER_SEQ_CST;
}

static expr *atomic_call(parser *p, const call_form *f)
{
    expr *e = new_expr(f->kind, p->tok.line);
    advance(p);
    expect(p, "(");
    e->loc = location_argument(p, LOC_ATOMIC, f->name);
    if (f->cas) {
        expect(p, ",");
        e->expected_loc = location_argument(p, LOC_PLAIN, "the expected value of a compare-exchange");
        e->weak = f->weak;
    }
    if (f->kind != EXPR_LOAD) {
        expect(p, ",");
        e->a = expression(p);
    }
    e->rmw = f->rmw;
    if (f->explicit_order) {
        expect(p, ",");
        e->order = order_argument(p);
        if (f->cas) {
            expect(p, ",");
            e->failure = order_argument(p);
        }
    } else {
        e->order = e->failure = implicit_order(p, e->line);
    }
    expect(p, ")");
    return e;
}

static expr *primary(parser *p)
{
    int line = p->tok.line;
    if (p->tok.kind == TOK_NUMBER || is(p, "-")) {
        expr *e = new_expr(EXPR_CONST, line);
        e->value = number(p);
        return e;
    }
    if (accept(p, "(")) {
        expr *e = expression(p);
        expect(p, ")");
        return e;
    }
    if (accept(p, "*")) {
        expr *e = new_expr(EXPR_READ, line);
        e->loc = location_argument(p, LOC_PLAIN, "a plain read *x");
        return e;
    }
    if (is(p, "!") || is(p, "~"))
        refuse(p, line, "herd's C has no '%s': write r == 0", p->tok.text);
    if (p->tok.kind != TOK_NAME)
        refuse(p, line, "expected an expression, found '%s'", describe(&p->tok));
    const call_form *f = call_named(p->tok.text);
    if (f)
        return atomic_call(p, f);
    char name[LITMUS_MAX_NAME];
    expect_name(p, name, sizeof name);
    if (is(p, "("))
        refuse(p, line, "'%s(...)': not an operation explore_litmus knows", name);
    int reg = find_register(&p->t->threads[p->thread], name);
    if (reg < 0)
        refuse(p, line, "'%s' is not a register of P%d (declare it: int %s = ...;)%s", name, p->thread, name,
               find_location(p->t, name) >= 0 ? "; a location is read with *x or atomic_load_explicit" : "");
    expr *e = new_expr(EXPR_REG, line);
    e->reg = reg;
    return e;
}

/* Binary operators by precedence, loosest first (herd's C parser: | ^ &,
 * then comparisons, + -, * /), each level left-associative. */
static const char *const g_levels[][7] = {
    {"|"}, {"^"}, {"&"}, {"==", "!=", "<", "<=", ">", ">="}, {"+", "-"}, {"*", "/"},
};
#define NLEVELS ((int)(sizeof g_levels / sizeof g_levels[0]))

static const char *operator_at(const parser *p, int level)
{
    for (int i = 0; i < 7 && g_levels[level][i]; ++i)
        if (is(p, g_levels[level][i]))
            return g_levels[level][i];
    return NULL;
}

static expr *binary(parser *p, int level)
{
    if (level == NLEVELS)
        return primary(p);
    expr *left = binary(p, level + 1);
    const char *op;
    while ((op = operator_at(p, level))) {
        expr *e = new_expr(EXPR_BINARY, p->tok.line);
        snprintf(e->op, sizeof e->op, "%s", op);
        advance(p);
        e->a = left;
        e->b = binary(p, level + 1);
        left = e;
    }
    if (is(p, "&&") || is(p, "||"))
        refuse(p, p->tok.line, "herd's C has no '%s': use '%c' on 0/1 values", p->tok.text, p->tok.text[0]);
    return left;
}

static expr *expression(parser *p) { return binary(p, 0); }

/* ---- statements ---------------------------------------------------------------------------- */

static stmt *statement(parser *p);

static stmt *new_stmt(enum stmt_kind kind, int line)
{
    stmt *s = new_node(sizeof *s);
    s->kind = kind;
    s->line = line;
    s->reg = -1;
    return s;
}

/* Statements up to the closing brace (consumed). */
static stmt *block_body(parser *p)
{
    stmt *first = NULL, **link = &first;
    while (!accept(p, "}")) {
        if (p->tok.kind == TOK_EOF)
            refuse(p, p->tok.line, "a '{' is never closed");
        stmt *s = statement(p);
        if (s) {
            *link = s;
            link = &s->next;
        }
    }
    return first;
}

static stmt *declaration(parser *p, int line, int kind)
{
    char name[LITMUS_MAX_NAME];
    litmus_thread *th = &p->t->threads[p->thread];
    if (kind != LOC_PLAIN || is(p, "*"))
        refuse(p, line, "a register is an int (int r0 = ...;): explore_litmus runs int values only");
    expect_name(p, name, sizeof name);
    if (find_register(th, name) >= 0)
        refuse(p, line, "register '%s' declared twice in P%d", name, p->thread);
    if (find_location(p->t, name) >= 0)
        refuse(p, line, "register '%s' has the name of a location", name);
    if (th->nregs == LITMUS_MAX_REGISTERS)
        refuse(p, line, "more than %d registers in P%d", LITMUS_MAX_REGISTERS, p->thread);
    snprintf(th->regs[th->nregs], sizeof th->regs[0], "%s", name);
    stmt *s = new_stmt(STMT_SET, line);
    s->reg = th->nregs++;
    if (accept(p, "="))
        s->value = expression(p);
    else
        s->value = new_expr(EXPR_CONST, line); /* herd: a register starts at 0 */
    expect(p, ";");
    return s;
}

static stmt *store_call(parser *p, int line, bool explicit_order)
{
    stmt *s = new_stmt(STMT_STORE, line);
    advance(p);
    expect(p, "(");
    s->loc = location_argument(p, LOC_ATOMIC, "atomic_store");
    expect(p, ",");
    s->value = expression(p);
    if (explicit_order) {
        expect(p, ",");
        s->order = order_argument(p);
    } else {
        s->order = implicit_order(p, line);
    }
    expect(p, ")");
    expect(p, ";");
    return s;
}

static stmt *fence(parser *p, int line)
{
    stmt *s = new_stmt(STMT_FENCE, line);
    advance(p);
    expect(p, "(");
    s->order = order_argument(p);
    expect(p, ")");
    expect(p, ";");
    if (!p->t->fence_line)
        p->t->fence_line = line;
    return s;
}

static stmt *mutex_call(parser *p, int line, enum stmt_kind kind)
{
    stmt *s = new_stmt(kind, line);
    advance(p);
    expect(p, "(");
    s->loc = location_argument(p, LOC_MUTEX, kind == STMT_LOCK ? "lock" : "unlock");
    expect(p, ")");
    expect(p, ";");
    return s;
}

static stmt *if_statement(parser *p, int line)
{
    stmt *s = new_stmt(STMT_IF, line);
    advance(p);
    expect(p, "(");
    s->value = expression(p);
    expect(p, ")");
    s->body = statement(p);
    if (accept(p, "else"))
        s->otherwise = statement(p);
    return s;
}

static stmt *statement(parser *p)
{
    int line = p->tok.line, kind;
    if (accept(p, ";"))
        return NULL;
    if (accept(p, "{")) {
        stmt *s = new_stmt(STMT_BLOCK, line);
        s->body = block_body(p);
        return s;
    }
    if (is(p, "if"))
        return if_statement(p, line);
    if (is(p, "while") || is(p, "for") || is(p, "do") || is(p, "goto"))
        refuse(p, line, "'%s': explore_litmus runs loop-free threads only (herd unrolls loops; write the "
                        "iterations out)", p->tok.text);
    if (is(p, "atomic_store_explicit"))
        return store_call(p, line, true);
    if (is(p, "atomic_store"))
        return store_call(p, line, false);
    if (is(p, "atomic_thread_fence"))
        return fence(p, line);
    if (is(p, "atomic_signal_fence"))
        refuse(p, line, "atomic_signal_fence: a fence against a signal handler on the same thread; a litmus "
                        "test has none (use atomic_thread_fence)");
    if (is(p, "lock") || is(p, "mtx_lock"))
        return mutex_call(p, line, STMT_LOCK);
    if (is(p, "unlock") || is(p, "mtx_unlock"))
        return mutex_call(p, line, STMT_UNLOCK);
    if (type_words(p, &kind))
        return declaration(p, line, kind);
    if (accept(p, "*")) {
        stmt *s = new_stmt(STMT_WRITE, line);
        s->loc = location_argument(p, LOC_PLAIN, "a plain write *x = ...");
        expect(p, "=");
        s->value = expression(p);
        expect(p, ";");
        return s;
    }
    if (p->tok.kind == TOK_NAME && !call_named(p->tok.text)) {
        char name[LITMUS_MAX_NAME];
        expect_name(p, name, sizeof name);
        int reg = find_register(&p->t->threads[p->thread], name);
        if (reg < 0 || !is(p, "="))
            refuse(p, line, "'%s': expected a statement (a register assignment, *x = ..., an atomic_* call, "
                            "if, lock)", name);
        advance(p);
        stmt *s = new_stmt(STMT_SET, line);
        s->reg = reg;
        s->value = expression(p);
        expect(p, ";");
        return s;
    }
    stmt *s = new_stmt(STMT_SET, line); /* an atomic call whose value is dropped */
    s->value = expression(p);
    if (s->value->kind != EXPR_RMW && s->value->kind != EXPR_CAS && s->value->kind != EXPR_LOAD)
        refuse(p, line, "an expression statement that does nothing");
    expect(p, ";");
    return s;
}

/* ---- the frame: name, init, threads, condition ------------------------------------------------ */

static void init_block(parser *p)
{
    expect(p, "{");
    while (!accept(p, "}")) {
        int line = p->tok.line, kind;
        if (accept(p, ";"))
            continue;
        bool typed = type_words(p, &kind);
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
            if (is(p, "&"))
                refuse(p, line, "'%s': a location holding a pointer is not supported (int values only)", name);
            p->t->locs[loc].init = number(p);
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
        expect(p, "*");
        char name[LITMUS_MAX_NAME];
        expect_name(p, name, sizeof name);
        if (kind < 0)
            refuse(p, line, "'%s': explore_litmus runs int locations (atomic_int*, int*) and mutexes (mtx_t*) only",
                   name);
        int loc = add_location(p, name, line);
        litmus_location *l = &p->t->locs[loc];
        if (l->line && (int)l->kind != kind)
            refuse(p, line, "'%s' is %s here and %s at line %d: explore_litmus keeps a location atomic or plain, as "
                            "C11 does", name, kind == LOC_ATOMIC ? "atomic" : "not atomic",
                   l->kind == LOC_ATOMIC ? "atomic" : "not atomic", l->line);
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
    int n = atoi(p->tok.text + 1);
    if (n != p->t->nthreads)
        refuse(p, p->tok.line, "expected thread P%d, found %s", p->t->nthreads, p->tok.text);
    if (n == LITMUS_MAX_THREADS)
        refuse(p, p->tok.line, "more than %d threads: the explorer runs at most %d", LITMUS_MAX_THREADS,
               LITMUS_MAX_THREADS);
    advance(p);
    return true;
}

static void thread(parser *p)
{
    p->thread = p->t->nthreads++;
    parameters(p);
    expect(p, "{");
    p->lx.code = true;
    p->t->threads[p->thread].body = block_body(p);
    p->lx.code = false;
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
        refuse(p, p->tok.line, "more than %d registers and locations in the condition", LITMUS_MAX_OBSERVED);
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
    return (observed){-1, loc};
}

static cond *new_cond(enum cond_kind kind)
{
    cond *c = new_node(sizeof *c);
    c->kind = kind;
    return c;
}

static cond *disjunction(parser *p);

static cond *atom(parser *p)
{
    if (accept(p, "~") || accept(p, "not")) {
        cond *c = new_cond(COND_NOT);
        c->a = atom(p);
        return c;
    }
    if (accept(p, "(")) {
        cond *c = disjunction(p);
        expect(p, ")");
        return c;
    }
    if (accept(p, "true"))
        return new_cond(COND_TRUE);
    if (accept(p, "false"))
        return new_cond(COND_FALSE);
    cond *c = new_cond(COND_EQ);
    c->what = observable(p);
    show(p, c->what);
    bool differs = accept(p, "!=");
    if (!differs)
        expect(p, "=");
    c->value = number(p);
    if (!differs)
        return c;
    cond *n = new_cond(COND_NOT); /* herd reads x != v as ~(x = v) */
    n->a = c;
    return n;
}

static cond *conjunction(parser *p)
{
    cond *left = atom(p);
    while (accept(p, "/\\")) {
        cond *c = new_cond(COND_AND);
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
        cond *c = new_cond(COND_OR);
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

static void final_condition(parser *p)
{
    if (accept(p, "locations"))
        locations_clause(p);
    int line = p->tok.line;
    if (p->tok.kind == TOK_EOF) { /* no condition: herd reads forall (true) */
        p->t->quantifier = FORALL;
        p->t->condition = new_cond(COND_TRUE);
        return;
    }
    if (accept(p, "exists"))
        p->t->quantifier = EXISTS;
    else if (accept(p, "~") && accept(p, "exists"))
        p->t->quantifier = NOT_EXISTS;
    else if (accept(p, "forall"))
        p->t->quantifier = FORALL;
    else
        refuse(p, line, "expected the final condition: exists, ~exists or forall, found '%s'", describe(&p->tok));
    p->t->condition = disjunction(p);
    if (p->tok.kind != TOK_EOF)
        refuse(p, p->tok.line, "unexpected '%s' after the condition", describe(&p->tok));
}

/* herd's order of a state's parts: registers by thread then name, then
 * locations by name (as strings: r10 before r2). */
static const litmus_test *g_sorting;
static int compare_observed(const void *a, const void *b)
{
    const observed *x = a, *y = b;
    if ((x->thread < 0) != (y->thread < 0))
        return x->thread < 0 ? 1 : -1;
    if (x->thread != y->thread)
        return x->thread - y->thread;
    if (x->thread < 0)
        return strcmp(g_sorting->locs[x->index].name, g_sorting->locs[y->index].name);
    return strcmp(g_sorting->threads[x->thread].regs[x->index], g_sorting->threads[y->thread].regs[y->index]);
}

/* ---- expected states, from the comments ------------------------------------------------------------ */

/* Lines "expect 1:r0=0; 1:r1=1;" anywhere in the file (inside a comment):
 * the final states the test's author states, in herd's format. */
static void expected_states(litmus_test *t, const char *source)
{
    for (const char *line = source; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        line += strspn(line, " \t");
        if (strncmp(line, "expect ", 7) != 0 || t->nexpected == LITMUS_MAX_EXPECTED)
            continue;
        const char *s = line + 7;
        s += strspn(s, " \t");
        size_t n = strcspn(s, "\r\n");
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            --n;
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
    g_blocks = NULL;
    if (setjmp(p.fail)) {
        t->nodes = g_blocks;
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
    if (p.tok.kind == TOK_STRING)
        advance(&p);
    init_block(&p);
    while (thread_header(&p))
        thread(&p);
    if (t->nthreads == 0)
        refuse(&p, p.tok.line, "expected a thread P0(...) { ... }, found '%s'", describe(&p.tok));
    final_condition(&p);
    g_sorting = t;
    qsort(t->shown, (size_t)t->nshown, sizeof t->shown[0], compare_observed);
    expected_states(t, source);
    t->nodes = g_blocks;
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

void litmus_free(litmus_test *t)
{
    for (node_block *b = t->nodes, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    t->nodes = NULL;
}
