/*
 * The explorer's lockstep_alloc / lockstep_free (it replaces
 * common/src/alloc.c in the explorer's binaries), built to catch memory
 * errors in one schedule:
 *
 * - a freed block is filled with poison and kept (quarantined) until the
 *   schedule ends, never reused, so a later access cannot hit a new owner;
 * - every hooked access (atomic operation, lock) is checked against the
 *   freed blocks: "use after free", with who freed it and where;
 * - the poison is the address of an inaccessible guard region, so a pointer
 *   read out of a freed block by plain code faults at a recognizable address
 *   (the crash handler below says so);
 * - a freed coroutine frame that the scenario named gets a trap as its
 *   resume function: resuming it reports instead of jumping into poison;
 * - freeing twice is reported, and so is any block left at the end (a leak);
 * - like common's, it can be told to fail a thread's n-th allocation
 *   (lockstep_alloc_fail_nth), and it names blocks that a library call
 *   allocates where the scenario cannot see them (explore_name_next_alloc).
 *
 * Only one scenario thread runs at a time, so no lock is needed here.
 */
/* MAP_ANONYMOUS is not in POSIX 2008, which the project asks for. */
#define _DEFAULT_SOURCE

#include "model.h"

#include "lockstep/alloc.h"
#include "lockstep/coro.h"

#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct block {
    char *p;
    size_t size;
    const explore_site *site; /* where it was allocated; NULL: by common/ (a frame from lockstep_coro_new) */
    void *callers[3];         /* then: who called, for the report (backtrace) */
    int alloc_event;
    int free_event;           /* -1: not freed */
} block;

#define MAX_BLOCKS 256
static block g_blocks[MAX_BLOCKS];
static int g_nblocks;

#define GUARD_SIZE (1u << 16)
static char *g_guard; /* PROT_NONE: the poison points into its middle */

/* Whether addr lies in the guard region freed blocks point into (crash.c). */
bool alloc_is_poison(const void *addr)
{
    return g_guard && (const char *)addr >= g_guard && (const char *)addr < g_guard + GUARD_SIZE;
}

const void *alloc_poison(void) { return g_guard + GUARD_SIZE / 2; }

/* Per thread (index explore_self(), EXPLORE_MAIN the main thread), for its
 * next allocations: an injected failure, counted as common/src/alloc.c
 * does, and the names explore_name_next_alloc() gave them. */
#define MAX_UPCOMING_NAMES 4
typedef struct upcoming {
    uint64_t countdown; /* 0: no failure planned; else the countdown reaches 0 on the failing call */
    bool fail_rest;     /* keep failing once it is reached */
    bool failing;       /* every call fails */
    const char *names[MAX_UPCOMING_NAMES];
    bool coro[MAX_UPCOMING_NAMES];
    int nnames;
} upcoming;
static upcoming g_upcoming[THREADS];

static upcoming *mine(void)
{
    return &g_upcoming[thread_self()];
}

/* As common/src/alloc.c: the countdown reaches zero on the failing call. */
static bool inject_failure(upcoming *u)
{
    if (u->failing)
        return true;
    if (u->countdown == 0 || --u->countdown != 0)
        return false;
    u->failing = u->fail_rest;
    return true;
}

/* Where a block was allocated: its hooked site, or the first caller
 * outside common/ (a coroutine frame: where lockstep_coro_new was called). */
static const char *where(const block *b, char *buf, size_t size)
{
    if (b->site) {
        snprintf(buf, size, "%s:%d", base_name(b->site->file), b->site->line);
        return buf;
    }
    char file[300];
    int line;
    for (int i = 0; i < 3; ++i)
        if (b->callers[i] && name_code_line(b->callers[i], file, sizeof file, &line) && !strstr(file, "common/")) {
            snprintf(buf, size, "%s:%d", base_name(file), line);
            return buf;
        }
    snprintf(buf, size, "common/");
    return buf;
}

void alloc_reset(void)
{
    for (int i = 0; i < g_nblocks; ++i)
        free(g_blocks[i].p);
    g_nblocks = 0;
    memset(g_upcoming, 0, sizeof g_upcoming);
}

static block *find(const volatile void *addr, bool inside)
{
    const char *a = (const char *)addr;
    for (int i = 0; i < g_nblocks; ++i) {
        block *b = &g_blocks[i];
        if (inside ? (a >= b->p && a < b->p + b->size) : a == b->p)
            return b;
    }
    return NULL;
}

static const char *who(int thread)
{
    static char buf[80];
    if (thread == EXPLORE_MAIN)
        return "the main thread";
    snprintf(buf, sizeof buf, "T%d %s", thread, thread_name(thread));
    return buf;
}

/* Where a free was: "task.c:48", or common/'s (lockstep_coro_destroy's). */
static const char *free_site(const event *f, char *buf, size_t size)
{
    if (f->site)
        snprintf(buf, size, "%s:%d", base_name(f->site->file), f->site->line);
    else
        snprintf(buf, size, "lockstep_free in common/");
    return buf;
}

static void describe(const block *b, char *buf, size_t size)
{
    const char *name = explore_name_of(b->p);
    char at[64];
    where(b, at, sizeof at);
    if (name)
        snprintf(buf, size, "'%s' (%zu bytes, allocated at %s)", name, b->size, at);
    else
        snprintf(buf, size, "a block of %zu bytes allocated at %s", b->size, at);
}

static void *alloc(size_t size, const explore_site *site, void *const *callers)
{
    if (!g_guard) {
        g_guard = mmap(NULL, GUARD_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (g_guard == MAP_FAILED) {
            perror("explore: mmap");
            exit(2);
        }
    }
    int self = thread_self();
    upcoming *u = mine();
    const char *name = NULL;
    bool coro = false;
    if (u->nnames > 0) { /* a failed allocation uses its name up too */
        name = u->names[0];
        coro = u->coro[0];
        --u->nnames;
        memmove(u->names, u->names + 1, (size_t)u->nnames * sizeof u->names[0]);
        memmove(u->coro, u->coro + 1, (size_t)u->nnames * sizeof u->coro[0]);
    }
    /* A trace line for the scenario threads' allocations that say something:
     * a site in the step's code, or a name. */
    bool traced = self != EXPLORE_MAIN && (site || name);
    event *e = traced ? event_new(EV_ALLOC, self, site) : event_silent(EV_ALLOC, self, site);
    e->size = size;
    if (name)
        snprintf(e->text, sizeof e->text, "%s", name);
    if (inject_failure(u)) {
        e->failed = true;
        if (!traced) /* a failure is always worth a line */
            *e = *event_new(EV_ALLOC, self, site);
        return NULL;
    }
    if (g_nblocks == MAX_BLOCKS)
        explore_fail("explorer", "more than %d allocations in one schedule", MAX_BLOCKS);
    size = size ? size : 1;
    char *p = malloc(size);
    if (!p) {
        fputs("explore: out of memory\n", stderr);
        exit(2);
    }
    block *b = &g_blocks[g_nblocks++];
    *b = (block){.p = p, .size = size, .site = site, .alloc_event = event_index(e), .free_event = -1};
    if (callers)
        memcpy(b->callers, callers, sizeof b->callers);
    e->obj = p;
    if (name && coro)
        explore_name_coro(p, name);
    else if (name)
        explore_name(p, name);
    return p;
}

void *explore_alloc_at(size_t size, const explore_site *site) { return alloc(size, site, NULL); }

void lockstep_alloc_fail_nth(uint64_t n)
{
    upcoming *u = mine();
    u->countdown = n;
    u->fail_rest = false;
    u->failing = false;
}

void lockstep_alloc_fail_after(uint64_t n)
{
    upcoming *u = mine();
    u->countdown = n + 1;
    u->fail_rest = true;
    u->failing = false;
}

void lockstep_alloc_fail_none(void)
{
    lockstep_alloc_fail_nth(0);
}

void explore_name_next_alloc(const char *name, bool coro)
{
    upcoming *u = mine();
    if (!name) {
        u->nnames = 0;
        return;
    }
    if (u->nnames == MAX_UPCOMING_NAMES)
        explore_fail("explorer", "more than %d names for the next allocations of a thread", MAX_UPCOMING_NAMES);
    u->names[u->nnames] = name;
    u->coro[u->nnames++] = coro;
}

static lockstep_coro *trap_resume(lockstep_coro *self);
static void trap_destroy(lockstep_coro *self);

void explore_free_at(void *p, const explore_site *site)
{
    if (!p)
        return;
    int self = thread_self();
    block *b = find(p, false);
    char what[200], at[64] = "lockstep_free";
    if (site)
        snprintf(at, sizeof at, "%s:%d", base_name(site->file), site->line);
    if (!b)
        explore_fail("bad free", "%s frees %p, which lockstep_alloc did not return", at, p);
    if (b->free_event >= 0) {
        describe(b, what, sizeof what);
        const event *first = event_at(b->free_event);
        event *again = event_silent(EV_USE, self, site);
        again->obj = b->p;
        snprintf(again->text, sizeof again->text, "double free: frees it again");
        fail_blame(first);
        fail_blame(again);
        char at1[64];
        explore_fail("double free", "%s frees %s a second time; %s freed it at %s (trace line %d)", at, what,
                     who(first->thread), free_site(first, at1, sizeof at1), first->line);
    }
    event *e = event_new(EV_FREE, self, site);
    e->obj = b->p;
    /* Freeing is a write to every byte of the block (datarace.c), after every
     * other thread's last use of it, or it races with that use. */
    if (thread_running())
        datarace_free(self, b->p, b->size, e);
    location_forget(b->p, b->size);
    b->free_event = event_index(e);

    uintptr_t poison = (uintptr_t)(g_guard + GUARD_SIZE / 2);
    size_t words = b->size / sizeof poison;
    memset(b->p, 0xa5, b->size);
    for (size_t i = 0; i < words; ++i)
        memcpy(b->p + i * sizeof poison, &poison, sizeof poison);
    if (name_is_coro(p) && b->size >= sizeof(lockstep_coro)) {
        lockstep_coro *h = p;
        h->resume = trap_resume;
        h->destroy = trap_destroy;
    }
}

/* common/'s calls (coro.c, not hooked): no site, so who called is kept. */
void *lockstep_alloc(size_t size)
{
    void *callers[5] = {0};
    int n = backtrace(callers, 5); /* [0] is here, [1] lockstep_coro_new, then its caller */
    return alloc(size, NULL, n > 1 ? callers + 1 : NULL);
}

void lockstep_free(void *p) { explore_free_at(p, NULL); }

int64_t lockstep_alloc_live(void)
{
    int64_t live = 0;
    for (int i = 0; i < g_nblocks; ++i)
        live += g_blocks[i].free_event < 0;
    return live;
}

/* The use of a freed block: its event and the free's are the failure's. */
static _Noreturn void freed_fail(int thread, const block *b, const explore_site *site, const char *what)
{
    char desc[200], by[80];
    describe(b, desc, sizeof desc);
    const event *f = event_at(b->free_event);
    snprintf(by, sizeof by, "%s", who(f->thread));
    event *use = event_silent(EV_USE, thread, site);
    use->obj = b->p;
    snprintf(use->text, sizeof use->text, "use after free: %s", what);
    fail_blame(f);
    fail_blame(use);
    char at[64];
    explore_fail("use after free", "%s %s %s, which %s freed (trace line %d, %s)", who(thread), what, desc, by,
                 f->line, free_site(f, at, sizeof at));
}

bool explore_freed(const volatile void *p)
{
    const block *b = find(p, false);
    return b && b->free_event >= 0;
}

const void *alloc_block_of(const volatile void *addr)
{
    const block *b = find(addr, true);
    return b ? b->p : NULL;
}

void alloc_check_use(int thread, const volatile void *obj, const char *verb, const explore_site *site,
                     const char *prep)
{
    const block *b = find(obj, true);
    if (!b || b->free_event < 0)
        return;
    char what[200];
    if (site)
        snprintf(what, sizeof what, "%s %s:%d %s", verb, base_name(site->file), site->line, prep);
    else
        snprintf(what, sizeof what, "%s", verb);
    freed_fail(thread, b, site, what);
}

static lockstep_coro *trap_resume(lockstep_coro *self)
{
    freed_fail(thread_self(), find(self, false), NULL, "resumes the coroutine");
}

static void trap_destroy(lockstep_coro *self)
{
    freed_fail(thread_self(), find(self, false), NULL, "destroys the coroutine");
}

/* A leak's evidence: its allocation, and the last atomic operation on the
 * block or on a pointer into it: the last chance to free it, not taken. */
static void blame_leak(const block *b)
{
    fail_blame(event_at(b->alloc_event));
    for (int i = event_count() - 1; i >= 0; --i) {
        const event *e = event_at(i);
        uintptr_t lo = (uintptr_t)b->p, hi = lo + b->size;
        bool on = (uintptr_t)e->obj >= lo && (uintptr_t)e->obj < hi;
        bool about = (e->read >= lo && e->read < hi) || (e->stored >= lo && e->stored < hi);
        if (e->kind == EV_ATOMIC && (on || about)) {
            fail_blame(e);
            return;
        }
    }
}

void alloc_check_leaks(void)
{
    for (int i = 0; i < g_nblocks; ++i)
        if (g_blocks[i].free_event < 0) {
            char desc[200];
            describe(&g_blocks[i], desc, sizeof desc);
            blame_leak(&g_blocks[i]);
            explore_fail("leak", "%s was never freed (%lld block(s) left at the end of the schedule)", desc,
                         (long long)lockstep_alloc_live());
        }
}
