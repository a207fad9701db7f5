/*
 * A litmus thread's body: herd7's C statements and expressions, into the
 * tree of litmus.h. What explore_litmus cannot run exactly (loops, &&, an
 * atomic operation on a plain location...) is refused here, with the line.
 */
#include "parse.h"

#include <stdio.h>
#include <string.h>

/* ---- expressions ------------------------------------------------------------------------ */

static expr *expression(parser *p);

static expr *new_expr(parser *p, enum expr_kind kind, int line)
{
    expr *e = new_node(p, sizeof *e);
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

static expr *atomic_call(parser *p, const call_form *f)
{
    expr *e = new_expr(p, f->kind, p->tok.line);
    advance(p);
    expect(p, "(");
    e->loc = access_argument(p, f->name, &e->via, e->via_name);
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
        e->order = e->failure = memory_order_seq_cst; /* the forms without _explicit */
    }
    expect(p, ")");
    return e;
}

static expr *primary(parser *p)
{
    int line = p->tok.line;
    if (p->tok.kind == TOK_NUMBER || is(p, "-")) {
        expr *e = new_expr(p, EXPR_CONST, line);
        e->value = number(p);
        return e;
    }
    if (accept(p, "(")) {
        int kind;
        if (type_words(p, &kind)) { /* a cast, (int**)e: every value here is an int or an address */
            stars(p);
            expect(p, ")");
            return primary(p);
        }
        expr *e = expression(p);
        expect(p, ")");
        return e;
    }
    if (accept(p, "*")) {
        expr *e = new_expr(p, EXPR_READ, line);
        e->loc = access_argument(p, "a plain read *x", &e->via, e->via_name);
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
    /* herd reads atomic_add_unless as Linux's (its CSem: an RMW whose
     * events carry a Linux annotation, no memory order, on the success
     * path only): an operation with no C11 meaning. */
    if (is(p, "(") && strcmp(name, "atomic_add_unless") == 0)
        refuse(p, line, "'atomic_add_unless': Linux's, not C11's (herd gives it Linux's annotations, no memory "
                        "order); write it with C11's atomic operations");
    if (is(p, "("))
        refuse(p, line, "'%s(...)': not an operation explore_litmus knows", name);
    int reg = find_register(&p->t->threads[p->thread], name);
    if (reg < 0 && find_location(p->t, name) >= 0) { /* x: the location's address (herd's C) */
        expr *e = new_expr(p, EXPR_CONST, line);
        e->value = address_value(p, name, line);
        return e;
    }
    if (reg < 0)
        refuse(p, line, "'%s' is not a register of P%d (declare it: int %s = ...;)", name, p->thread, name);
    expr *e = new_expr(p, EXPR_REG, line);
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
        expr *e = new_expr(p, EXPR_BINARY, p->tok.line);
        snprintf(e->op, sizeof e->op, "%s", op);
        advance(p);
        e->a = left;
        e->b = binary(p, level + 1);
        left = e;
    }
    if (is(p, "&&") || is(p, "||"))
        refuse_here(p, "herd's C has no '%s': use '%c' on 0/1 values", p->tok.text, p->tok.text[0]);
    return left;
}

static expr *expression(parser *p) { return binary(p, 0); }

/* ---- statements ---------------------------------------------------------------------------- */

static stmt *statement(parser *p);

static stmt *new_stmt(parser *p, enum stmt_kind kind, int line)
{
    stmt *s = new_node(p, sizeof *s);
    s->kind = kind;
    s->line = line;
    s->reg = -1;
    return s;
}

/* Statements up to the closing brace (consumed). */
stmt *block_body(parser *p)
{
    stmt *first = NULL, **link = &first;
    while (!accept(p, "}")) {
        if (p->tok.kind == TOK_EOF)
            refuse_here(p, "a '{' is never closed");
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
    int depth = stars(p); /* int *r2: a register holding an address, a value too (litmus.h) */
    if (kind == LOC_MUTEX || kind < 0 || (kind == LOC_ATOMIC && depth == 0))
        refuse(p, line, "a register is an int or a pointer (int r0 = ...; int *r1 = ...;): explore_litmus runs int "
                        "values and locations' addresses only");
    expect_name(p, name, sizeof name);
    if (find_register(th, name) >= 0)
        refuse(p, line, "register '%s' declared twice in P%d", name, p->thread);
    if (find_location(p->t, name) >= 0)
        refuse(p, line, "register '%s' has the name of a location", name);
    if (th->nregs == LITMUS_MAX_REGISTERS)
        refuse(p, line, "more than %d registers in P%d", LITMUS_MAX_REGISTERS, p->thread);
    snprintf(th->regs[th->nregs], sizeof th->regs[0], "%s", name);
    stmt *s = new_stmt(p, STMT_SET, line);
    s->reg = th->nregs++;
    if (accept(p, "="))
        s->value = expression(p);
    else
        s->value = new_expr(p, EXPR_CONST, line); /* herd: a register starts at 0 */
    expect(p, ";");
    return s;
}

static stmt *store_call(parser *p, int line, bool explicit_order)
{
    stmt *s = new_stmt(p, STMT_STORE, line);
    advance(p);
    expect(p, "(");
    s->loc = access_argument(p, "atomic_store", &s->via, s->via_name);
    expect(p, ",");
    s->value = expression(p);
    if (explicit_order) {
        expect(p, ",");
        s->order = order_argument(p);
    } else {
        s->order = memory_order_seq_cst;
    }
    expect(p, ")");
    expect(p, ";");
    return s;
}

static stmt *fence(parser *p, int line)
{
    stmt *s = new_stmt(p, STMT_FENCE, line);
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
    stmt *s = new_stmt(p, kind, line);
    advance(p);
    expect(p, "(");
    s->loc = location_argument(p, LOC_MUTEX, kind == STMT_LOCK ? "lock" : "unlock");
    expect(p, ")");
    expect(p, ";");
    return s;
}

static stmt *if_statement(parser *p, int line)
{
    stmt *s = new_stmt(p, STMT_IF, line);
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
        stmt *s = new_stmt(p, STMT_BLOCK, line);
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
    if (is(p, "spin_lock") || is(p, "spin_unlock") || is(p, "spin_trylock") || is(p, "spin_is_locked"))
        refuse(p, line, "'%s': herd's C has no such call (herd7 -model rc11.cat refuses it: \"Procedure call %s\"); "
                        "only herd's Linux macros (-macros kernel.def) read it, as a lock rc11.cat gives neither "
                        "exclusion nor synchronization: write lock(m) / unlock(m)", p->tok.text, p->tok.text);
    if (is(p, "lock") || is(p, "mtx_lock"))
        return mutex_call(p, line, STMT_LOCK);
    if (is(p, "unlock") || is(p, "mtx_unlock"))
        return mutex_call(p, line, STMT_UNLOCK);
    if (type_words(p, &kind))
        return declaration(p, line, kind);
    if (accept(p, "*")) {
        stmt *s = new_stmt(p, STMT_WRITE, line);
        s->loc = access_argument(p, "a plain write *x = ...", &s->via, s->via_name);
        expect(p, "=");
        s->value = expression(p);
        expect(p, ";");
        return s;
    }
    if (p->tok.kind == TOK_NAME && !call_named(p->tok.text)) {
        char name[LITMUS_MAX_NAME];
        expect_name(p, name, sizeof name);
        int reg = find_register(&p->t->threads[p->thread], name);
        if (is(p, "("))
            refuse(p, line, "'%s(...)': not an operation explore_litmus knows", name);
        if (reg < 0 || !is(p, "="))
            refuse(p, line, "'%s': expected a statement (a register assignment, *x = ..., an atomic_* call, "
                            "if, lock)", name);
        advance(p);
        stmt *s = new_stmt(p, STMT_SET, line);
        s->reg = reg;
        s->value = expression(p);
        expect(p, ";");
        return s;
    }
    stmt *s = new_stmt(p, STMT_SET, line); /* an atomic call whose value is dropped */
    s->value = expression(p);
    if (s->value->kind != EXPR_RMW && s->value->kind != EXPR_CAS && s->value->kind != EXPR_LOAD)
        refuse(p, line, "an expression statement that does nothing");
    expect(p, ";");
    return s;
}
