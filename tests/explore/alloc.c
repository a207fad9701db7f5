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

#include "explore.h"
#include "model.h"

#include "lockstep/alloc.h"
#include "lockstep/coro.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct block {
    char *p;
    size_t size;
    const char *file; /* where it was allocated (NULL: common/, e.g. a frame from lockstep_coro_new) */
    int line;
    bool freed;
    int freed_by;     /* thread, -1 main */
    const char *freed_file;
    int freed_line;
    int freed_event;  /* trace line of the free */
} block;

#define MAX_BLOCKS 256
static block g_blocks[MAX_BLOCKS];
static int g_nblocks;

#define GUARD_SIZE (1u << 16)
static char *g_guard; /* PROT_NONE: the poison points into its middle */

/* Per thread (index explore_self() + 1, so 0 is the main thread), for its
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
static upcoming g_upcoming[EXPLORE_MAX_THREADS + 1];

static upcoming *mine(void)
{
    return &g_upcoming[explore_self() + 1];
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

static const char *base(const char *file)
{
    const char *slash = file ? strrchr(file, '/') : NULL;
    return slash ? slash + 1 : file ? file : "common";
}

/* "task.c:60", or "common:" for an allocation in common/ (a coroutine frame). */
static const char *site(const char *file, int line, char *buf, size_t size)
{
    if (file)
        snprintf(buf, size, "%s:%d", base(file), line);
    else
        snprintf(buf, size, "common:");
    return buf;
}

void explore_alloc_reset(void)
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
    if (thread < 0)
        return "the main thread";
    snprintf(buf, sizeof buf, "T%d %s", thread, explore_thread_name(thread));
    return buf;
}

static void describe(const block *b, char *buf, size_t size)
{
    const char *name = explore_name_of(b->p);
    if (name)
        snprintf(buf, size, "'%s' (%zu bytes, allocated at %s:%d)", name, b->size, base(b->file), b->line);
    else
        snprintf(buf, size, "a block of %zu bytes allocated at %s:%d", b->size, base(b->file), b->line);
}

void *explore_alloc_at(size_t size, const char *file, int line)
{
    if (!g_guard) {
        g_guard = mmap(NULL, GUARD_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (g_guard == MAP_FAILED) {
            perror("explore: mmap");
            exit(2);
        }
    }
    char at[64];
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
    if (inject_failure(u)) {
        explore_trace_add(explore_self(), "%s allocate %zu bytes%s%s: fails (injected: lockstep_alloc_fail_nth)",
                          site(file, line, at, sizeof at), size, name ? " for " : "", name ? name : "");
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
    g_blocks[g_nblocks++] = (block){p, size, file, line, false, -1, NULL, 0, 0};
    if (name && coro)
        explore_name_coro(p, name);
    else if (name)
        explore_name(p, name);
    if (explore_self() >= 0 && (file || name))
        explore_trace_add(explore_self(), "%s allocate %zu bytes%s%s", site(file, line, at, sizeof at), size,
                          name ? ": " : "", name ? name : "");
    return p;
}

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

void explore_free_at(void *p, const char *file, int line)
{
    if (!p)
        return;
    block *b = find(p, false);
    char what[160];
    if (!b)
        explore_fail("bad free", "%s:%d frees %p, which lockstep_alloc did not return", base(file), line, p);
    describe(b, what, sizeof what);
    if (b->freed)
        explore_fail("double free", "%s:%d frees %s a second time; %s freed it at %s:%d (trace line %d)",
                     base(file), line, what, who(b->freed_by), base(b->freed_file), b->freed_line, b->freed_event);
    /* Freeing is a write to every byte of the block (race.c), after every
     * other thread's last use of it, or it races with that use. */
    model_free_as_write(b->p, b->size, file, line);
    model_forget(b->p, b->size);
    b->freed = true;
    b->freed_by = explore_self();
    b->freed_file = file;
    b->freed_line = line;
    if (file)
        explore_trace_add(explore_self(), "%s:%d free %s", base(file), line, explore_name_of(p) ? explore_name_of(p) : "block");
    else
        explore_trace_add(explore_self(), "free %s%s", explore_name_of(p) ? explore_name_of(p) : "a block",
                          explore_is_coro(p) ? "'s frame" : "");
    b->freed_event = explore_trace_length();

    uintptr_t poison = (uintptr_t)(g_guard + GUARD_SIZE / 2);
    size_t words = b->size / sizeof poison;
    memset(b->p, 0xa5, b->size);
    for (size_t i = 0; i < words; ++i)
        memcpy(b->p + i * sizeof poison, &poison, sizeof poison);
    if (explore_is_coro(p) && b->size >= sizeof(lockstep_coro)) {
        lockstep_coro *h = p;
        h->resume = trap_resume;
        h->destroy = trap_destroy;
    }
}

void *lockstep_alloc(size_t size) { return explore_alloc_at(size, NULL, 0); }
void lockstep_free(void *p) { explore_free_at(p, NULL, 0); }

int64_t lockstep_alloc_live(void)
{
    int64_t live = 0;
    for (int i = 0; i < g_nblocks; ++i)
        live += !g_blocks[i].freed;
    return live;
}

static _Noreturn void freed_fail(const char *kind, const block *b, const char *what)
{
    char desc[160];
    describe(b, desc, sizeof desc);
    char by[80];
    snprintf(by, sizeof by, "%s", who(b->freed_by));
    explore_fail(kind, "%s %s %s, which %s freed (trace line %d, %s:%d)", who(explore_self()), what, desc, by,
                 b->freed_event, base(b->freed_file), b->freed_line);
}

bool explore_freed(const volatile void *p)
{
    const block *b = find(p, false);
    return b && b->freed;
}

const void *explore_block_of(const volatile void *addr)
{
    const block *b = find(addr, true);
    return b ? b->p : NULL;
}

void explore_check_access(const volatile void *obj, size_t size, const char *what)
{
    (void)size;
    const block *b = find(obj, true);
    if (b && b->freed)
        freed_fail("use after free", b, what);
}

static lockstep_coro *trap_resume(lockstep_coro *self)
{
    freed_fail("use after free", find(self, false), "resumes the coroutine");
}

static void trap_destroy(lockstep_coro *self)
{
    freed_fail("use after free", find(self, false), "destroys the coroutine");
}

void explore_check_leaks(void)
{
    for (int i = 0; i < g_nblocks; ++i)
        if (!g_blocks[i].freed) {
            char desc[160];
            describe(&g_blocks[i], desc, sizeof desc);
            explore_fail("leak", "%s was never freed (%lld block(s) left at the end of the schedule)", desc,
                         (long long)lockstep_alloc_live());
        }
}

/* ---- crashes ------------------------------------------------------------------ */

/* A library assert (SIGABRT) or a fault ends the schedule: print its trace.
 * Not async-signal-safe, knowingly: the process is about to end, and the
 * other scenario threads are parked in the scheduler, not in stdio. */
static void on_crash(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    char *addr = info->si_addr;
    if (sig == SIGABRT)
        explore_fail("assert", "a library assert failed (the C library printed its message on stderr)");
    if (g_guard && addr >= g_guard && addr < g_guard + GUARD_SIZE)
        explore_fail("use after free", "%s crashed (%s at %p) using a pointer it read out of a freed block (freed "
                     "blocks are filled with the address %p; see the last 'free' line above)", who(explore_self()),
                     strsignal(sig), (void *)addr, (void *)(g_guard + GUARD_SIZE / 2));
    explore_fail("crash", "%s crashed: %s at address %p", who(explore_self()), strsignal(sig), (void *)addr);
}

void explore_install_crash_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    const int sigs[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; ++i)
        sigaction(sigs[i], &sa, NULL);
}
