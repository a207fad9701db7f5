/*
 * explore_litmus: herd7's C litmus tests, run under the explorer.
 *
 * A litmus test is a tiny concurrent program (two to four threads of a few
 * atomic operations each), the initial values of its memory, and a condition
 * on the final state ("exists (1:r0=1 /\ 1:r1=0)"). herd7, the reference
 * tool for such tests, computes every final state a memory model allows;
 * explore_litmus reads the same files and computes the same set by running
 * the test under the explorer's C11 model, then prints it in herd7's shape so
 * that the two outputs compare line by line.
 *
 * The pieces, one file each, in the order a reader takes them:
 *
 *   lexer.c    the tokens of herd's C litmus syntax;
 *   parse.c    a test file into the tree below, or a refusal (file:line and
 *              the reason) for anything the explorer cannot run exactly:
 *              the tokens and names it uses (parse.h), then
 *   parse_test.c    the frame: init block, threads' headers, condition;
 *   parse_thread.c  a thread's statements and expressions;
 *   site.c     each operation's context for the explorer: the litmus
 *              file's line and location names;
 *   exec.c     the interpreter of one thread's statements, compiled like a
 *              step's sources (hook.h, ThreadSanitizer's instrumentation),
 *              so that its atomic operations are the explorer's scheduling
 *              points and its plain accesses are race-checked;
 *   outcome.c  the set of final states and herd7's output shape;
 *   main.c     the command line: each file as an explorer scenario.
 */
#ifndef LOCKSTEP_LITMUS_H
#define LOCKSTEP_LITMUS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "explore.h"

#define LITMUS_MAX_THREADS 4  /* EXPLORE_MAX_THREADS */
#define LITMUS_MAX_LOCATIONS 16
#define LITMUS_MAX_REGISTERS 16 /* per thread */
#define LITMUS_MAX_NAME 32
#define LITMUS_MAX_OBSERVED 24  /* registers and locations a final state shows */
#define LITMUS_MAX_EXPECTED 64  /* "expect" lines */

/* A location's address, as a value: herd's C lets a thread store a
 * location's address (atomic_store_explicit(x1, x0, ...), an init
 * `int *x1 = &y;`) and access the location a register points to
 * (atomic_load_explicit(r2, ...)), and a state shows it by name
 * (1:r2=x0). Every value here is an int, so location i's address is the
 * int LITMUS_ADDRESS + i, a range no constant of the file may take
 * (number()). */
#define LITMUS_ADDRESS 0x7fff0000
static inline int litmus_address(int loc) { return LITMUS_ADDRESS + loc; }
/* The location whose address v is, or -1 (an int, no address). */
static inline int litmus_address_of(int v, int nlocs)
{
    return v >= LITMUS_ADDRESS && v - LITMUS_ADDRESS < nlocs ? v - LITMUS_ADDRESS : -1;
}

/* An order is a memory_order value of <stdatomic.h>, named and parsed by
 * the explorer's one table (explore_order_name, explore_order_parse). */

/* ---- memory -------------------------------------------------------------- */

/* What a type declares. An int location's accesses are atomic or plain as
 * each is written, whatever its parameters' types say (herd's C): only a
 * mutex is a kind apart. */
enum location_kind { LOC_ATOMIC, LOC_PLAIN, LOC_MUTEX };

typedef struct litmus_location {
    char name[LITMUS_MAX_NAME];
    enum location_kind kind; /* as the first parameter naming it declares it */
    int init;
    int line; /* where its kind was first given (a thread's parameter) */
    int init_line; /* where the init block gives its value; 0: it starts at 0 unsaid */
    explore_site init_site; /* its atomic_init, for the explorer (site.c) */
    int final_line; /* where the condition (or a locations clause) first names it; 0: neither does */
    explore_site final_site; /* the read of its final value after the join, for the explorer (site.c) */
} litmus_location;

/* ---- expressions ------------------------------------------------------------ */

enum expr_kind {
    EXPR_CONST,   /* 42 */
    EXPR_REG,     /* r0 */
    EXPR_BINARY,  /* a + b, a == b, ... (op: the operator's text) */
    EXPR_READ,    /* *x: a plain read */
    EXPR_LOAD,    /* atomic_load_explicit(x, order) */
    EXPR_RMW,     /* atomic_exchange_explicit / atomic_fetch_OP_explicit(x, arg, order) */
    EXPR_CAS,     /* atomic_compare_exchange_{strong,weak}_explicit(x, expected, desired, success, failure) */
};

/* What a read-modify-write does with its argument. */
enum rmw_op { RMW_XCHG, RMW_ADD, RMW_SUB, RMW_OR, RMW_AND, RMW_XOR };

typedef struct expr {
    enum expr_kind kind;
    int line;
    int value;              /* EXPR_CONST */
    int reg;                /* EXPR_REG */
    char op[3];             /* EXPR_BINARY: "+", "==", ... */
    int loc;                /* the location operated on (via == 0) */
    int via;                /* or the register holding its address, + 1 (0: loc itself) */
    char via_name[LITMUS_MAX_NAME + 1]; /* then "*r2", for the site */
    int expected_loc;       /* EXPR_CAS: the plain location holding the expected value */
    enum rmw_op rmw;        /* EXPR_RMW */
    bool weak;              /* EXPR_CAS */
    int order, failure;     /* failure: EXPR_CAS's order when it fails */
    struct expr *a, *b;     /* operands; EXPR_RMW and EXPR_CAS: a is the argument / desired value */
    explore_site site;      /* EXPR_READ, EXPR_LOAD, EXPR_RMW, EXPR_CAS: the operation's context for the explorer (site.c) */
    explore_site expected_read, expected_write; /* EXPR_CAS: its plain read of expected_loc, and the write back */
} expr;

/* ---- statements ------------------------------------------------------------- */

enum stmt_kind {
    STMT_SET,     /* r0 = e;  int r0 = e;  or e; alone (reg < 0) */
    STMT_WRITE,   /* *x = e;  a plain write */
    STMT_STORE,   /* atomic_store_explicit(x, e, order); */
    STMT_FENCE,   /* atomic_thread_fence(order); */
    STMT_IF,      /* if (e) then else */
    STMT_BLOCK,   /* { ... } */
    STMT_LOCK,    /* lock(m); / mtx_lock(m); */
    STMT_UNLOCK,  /* unlock(m); / mtx_unlock(m); */
};

typedef struct stmt {
    enum stmt_kind kind;
    int line;
    int reg;                 /* STMT_SET */
    int loc;                 /* STMT_WRITE, STMT_STORE, STMT_LOCK, STMT_UNLOCK */
    int via;                 /* STMT_WRITE, STMT_STORE: as expr's */
    char via_name[LITMUS_MAX_NAME + 1];
    int order;               /* STMT_STORE, STMT_FENCE */
    expr *value;             /* STMT_SET, STMT_WRITE, STMT_STORE; STMT_IF: the condition */
    struct stmt *body;       /* STMT_BLOCK: the first statement; STMT_IF: the then branch */
    struct stmt *otherwise;  /* STMT_IF: the else branch, or NULL */
    struct stmt *next;
    explore_site site;       /* STMT_WRITE, STMT_STORE, STMT_FENCE, STMT_LOCK, STMT_UNLOCK: as expr's */
} stmt;

typedef struct litmus_thread {
    char regs[LITMUS_MAX_REGISTERS][LITMUS_MAX_NAME];
    int nregs;
    stmt *body;
} litmus_thread;

/* ---- the final condition ------------------------------------------------------- */

/* Something a final state shows: a register of a thread, or a location. */
typedef struct observed {
    int thread; /* -1: a location */
    int index;  /* register index in thread, or location index */
} observed;

enum cond_kind { COND_TRUE, COND_FALSE, COND_EQ, COND_NOT, COND_AND, COND_OR };

typedef struct cond {
    enum cond_kind kind;
    observed what; /* COND_EQ: what = value */
    int value;
    struct cond *a, *b;
} cond;

enum quantifier { EXISTS, NOT_EXISTS, FORALL };

/* ---- a test ---------------------------------------------------------------------- */

/* The file's parts as written, for the tools that show them (--parse's
 * JSON; nothing here runs): its quoted line, its init block on one line,
 * each thread's code (its common indentation removed; malloc'd, freed by
 * litmus_free), the condition's quantifier and proposition, and the
 * comment lines a tool reads besides the expect lines (herd-differs,
 * herd-counts-differ, herd-skip, expect-counts), each's first. "": none. */
typedef struct litmus_source {
    char about[512];
    char init[512];
    char *code[LITMUS_MAX_THREADS];
    char quantifier[16];
    char proposition[512];
    char expect_counts[128];
    char herd_differs[512], herd_counts_differ[512], herd_skip[512];
} litmus_source;

typedef struct litmus_test {
    const char *path;
    char name[128];
    litmus_location locs[LITMUS_MAX_LOCATIONS];
    int nlocs;
    litmus_thread threads[LITMUS_MAX_THREADS];
    int nthreads;
    enum quantifier quantifier;
    cond *condition;
    observed shown[LITMUS_MAX_OBSERVED]; /* what a final state prints, in herd's order */
    int nshown;
    char expected[LITMUS_MAX_EXPECTED][160]; /* "expect" lines of the comments: herd's state lines */
    bool expected_c11[LITMUS_MAX_EXPECTED];  /* an "expect-c11" line: in C11's set only, not RC11's */
    int nexpected;
    long expected_counts[2]; /* an "expect-counts Positive: P Negative: N" line (herd7's, RC11), -1 -1 none */
    int fence_line; /* the first fence, 0 if none */
    litmus_source source; /* its parts as written */
    struct node_block *nodes; /* the tree's nodes (parse.c) */
} litmus_test;

/* parse_test.c: reads path into t. On failure prints "path:line:column: reason" to
 * stderr and returns false. The tree lives until litmus_free. */
bool litmus_parse(const char *path, litmus_test *t);
void litmus_free(litmus_test *t);

/* site.c: gives each operation of t its explorer site, the context a
 * trace line and a graph node name it by: `MP.litmus:17 load y`, the
 * file's line and location, not the interpreter's. */
void litmus_sites(litmus_test *t);

/* exec.c: the memory one schedule runs on, and the interpreter. Each int
 * location is a block of its own, named after it, so that the explorer's
 * reports say 'x' (a data race on 'x'), and one of the explorer's atomic
 * locations: its accesses are atomic or plain as each is written (herd). */
typedef struct litmus_memory {
    atomic_int *cell[LITMUS_MAX_LOCATIONS];
    pthread_mutex_t mutex[LITMUS_MAX_LOCATIONS];
    int regs[LITMUS_MAX_THREADS][LITMUS_MAX_REGISTERS]; /* each thread's registers, read after the join */
} litmus_memory;

void litmus_memory_setup(const litmus_test *t, litmus_memory *m);                 /* main thread, before */
void litmus_run_thread(const litmus_test *t, litmus_memory *m, int thread);       /* a scenario thread */
int litmus_final_value(const litmus_test *t, litmus_memory *m, observed what);    /* main thread, after */
void litmus_memory_free(const litmus_test *t, litmus_memory *m);                  /* main thread, last */

#endif /* LOCKSTEP_LITMUS_H */
