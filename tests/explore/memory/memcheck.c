/*
 * The memory errors of a schedule, each reported with the events that
 * make it (fail_blame), so that --graph draws them:
 *
 * - a use after free: a hooked access (atomic operation, lock) to a freed
 *   block (point.c and mutex.c ask), or the resume of a freed coroutine
 *   frame the scenario named, whose resume and destroy functions alloc.c
 *   replaced by this file's traps: the free and the use;
 * - a double free: the first free and the second;
 * - a leak, any block left at the end of the schedule: its allocation and
 *   the last atomic operation on it or on a pointer into it, the last
 *   chance to free it, not taken.
 *
 * A plain read of a freed block is the data-race check's and the crash
 * handler's (a freed block is poison, crash.c); a bad free is alloc.c's.
 */
#include "block.h"

#include "lockstep/alloc.h"
#include "lockstep/coro.h"

#include <stdio.h>
#include <string.h>

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

/* A thread's name, "T1 awaiter", written into the caller's buffer. */
static const char *who(int thread, char *buf, size_t size)
{
    return thread == EXPLORE_MAIN ? "the main thread" : name_thread(thread, buf, size);
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

void memcheck_describe(const block *b, char *buf, size_t size)
{
    const char *name = explore_name_of(b->p);
    char at[64];
    where(b, at, sizeof at);
    if (name)
        snprintf(buf, size, "'%s' (%zu bytes, allocated at %s)", name, b->size, at);
    else
        snprintf(buf, size, "a block of %zu bytes allocated at %s", b->size, at);
}

/* ---- use after free ------------------------------------------------------------ */

/* The use of a freed block: its event and the free's are the failure's. */
static _Noreturn void freed_fail(int thread, const block *b, const explore_site *site, const char *what)
{
    char desc[200], by[80], user[80];
    memcheck_describe(b, desc, sizeof desc);
    const event *f = event_at(b->free_event);
    event *use = event_silent(EV_USE, thread, site);
    use->obj = b->p;
    snprintf(use->text, sizeof use->text, "use after free: %s", what);
    fail_blame(f);
    fail_blame(use);
    char at[64];
    explore_fail("use after free", "%s %s %s, which %s freed (trace line %d, %s)", who(thread, user, sizeof user),
                 what, desc, who(f->thread, by, sizeof by), f->line, free_site(f, at, sizeof at));
}

void alloc_check_use(int thread, const volatile void *obj, const char *verb, const explore_site *site,
                     const char *prep)
{
    const block *b = block_in(obj);
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
    freed_fail(thread_self(), block_at(self), NULL, "resumes the coroutine");
}

static void trap_destroy(lockstep_coro *self)
{
    freed_fail(thread_self(), block_at(self), NULL, "destroys the coroutine");
}

void memcheck_trap(void *frame)
{
    lockstep_coro *h = frame;
    h->resume = trap_resume;
    h->destroy = trap_destroy;
}

/* ---- double free ----------------------------------------------------------------- */

void memcheck_double_free(int thread, const block *b, const explore_site *site)
{
    char what[200], at[64] = "lockstep_free", at1[64], by[80];
    if (site)
        snprintf(at, sizeof at, "%s:%d", base_name(site->file), site->line);
    memcheck_describe(b, what, sizeof what);
    const event *first = event_at(b->free_event);
    event *again = event_silent(EV_USE, thread, site);
    again->obj = b->p;
    snprintf(again->text, sizeof again->text, "double free: frees it again");
    fail_blame(first);
    fail_blame(again);
    explore_fail("double free", "%s frees %s a second time; %s freed it at %s (trace line %d)", at, what,
                 who(first->thread, by, sizeof by), free_site(first, at1, sizeof at1), first->line);
}

/* ---- leaks ------------------------------------------------------------------------- */

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
    for (int i = 0; i < block_count(); ++i)
        if (block_nth(i)->free_event < 0) {
            char desc[200];
            memcheck_describe(block_nth(i), desc, sizeof desc);
            blame_leak(block_nth(i));
            explore_fail("leak", "%s was never freed (%lld block(s) left at the end of the schedule)", desc,
                         (long long)lockstep_alloc_live());
        }
}
