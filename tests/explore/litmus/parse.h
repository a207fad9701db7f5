/*
 * What the parser's three files share (parse.c, parse_thread.c,
 * parse_test.c): the state of a parse, the tokens, the names, the types.
 * Not for the rest of explore_litmus, which sees litmus_parse (litmus.h).
 */
#ifndef LOCKSTEP_LITMUS_PARSE_H
#define LOCKSTEP_LITMUS_PARSE_H

#include "lexer.h"
#include "litmus.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>

/* Every node of a test's tree, to free them together. */
typedef struct node_block {
    struct node_block *next;
    max_align_t data[];
} node_block;

typedef struct parser {
    lexer lx;
    token tok;  /* the current token */
    token prev; /* the one before it, consumed (where a part just read ends) */
    litmus_test *t;
    int thread; /* the thread being read, -1 outside */
    int params[LITMUS_MAX_LOCATIONS]; /* of the current thread: which locations it names */
    int nparams;
    node_block *nodes; /* every node made so far (new_node) */
    jmp_buf fail;
} parser;

/* A node of the tree (zeroed), freed with the test (litmus_free). */
void *new_node(parser *p, size_t size);
/* Prints "path:line:column: reason" and abandons the parse (longjmp to
 * p->fail): refuse_here at the current token, refuse at a line the parser
 * kept (a statement's, a declaration's), its first character that is not
 * a blank. */
_Noreturn void refuse(parser *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
_Noreturn void refuse_here(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void refuse_column(parser *p, int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 4, 5))); /* at a token the parser kept */

/* Tokens. */
void advance(parser *p);
bool is(const parser *p, const char *text);     /* the current token is this name or punctuation */
bool accept(parser *p, const char *text);       /* is, then advance */
const char *describe(const token *t);
void expect(parser *p, const char *text);       /* accept, or refuse */
void expect_name(parser *p, char *buf, size_t size);
int number(parser *p);                          /* 42, -1, 0x10 */

/* Names. */
int find_location(const litmus_test *t, const char *name);      /* -1: none */
int add_location(parser *p, const char *name, int line);
int find_register(const litmus_thread *th, const char *name);   /* -1: none */
int location_argument(parser *p, enum location_kind kind, const char *what);
/* The location an access works on: a parameter, or a register holding an
 * address (*via: the register + 1, via_name "*r2"; 0 if a parameter). */
int access_argument(parser *p, const char *what, int *via, char *via_name);
/* A parameter of the current thread used as a value: its address. */
int address_value(parser *p, const char *name, int line);
/* The stars of a pointer type (int *r, atomic_int **x): how many. */
int stars(parser *p);
int order_argument(parser *p);                  /* memory_order_X */
/* The words of a type (volatile atomic_int, int, mtx_t...): false if none;
 * *kind: the kind of location they make, -1 for a type not run. */
bool type_words(parser *p, int *kind);

/* parse_thread.c: a thread's statements up to its closing brace. */
stmt *block_body(parser *p);

#endif /* LOCKSTEP_LITMUS_PARSE_H */
