/*
 * A failure, recorded and unwound: what every check calls when it finds
 * one (explore_fail), and what the scheduler asks afterwards.
 *
 * The checks live in the model's files (datarace.c, memcheck.c, location.c,
 * thread.c's deadlock), deep inside an operation of a scenario thread. None
 * of them prints: a failure is recorded here as a value (its kind, its
 * message, the events that make it) and the thread unwinds to where the
 * scheduler caught it: a scenario thread to its entry in thread.c, which
 * hands the turn to the main thread; the main thread to run.c, which prints
 * the report (report.c: the trace, the failure line, the replay command,
 * the graph). So the calls go one way: this file calls nothing above it,
 * and the model's files never call up into the trace or the graph.
 *
 * The checks name the events that make a failure first (fail_blame: the
 * free and the use, the two racing accesses, a leaked block's allocation,
 * the lock a deadlocked thread waits behind), so that the graph can draw
 * them; a scenario names the object of its own failures (explore_culprit:
 * the coroutine nobody resumed).
 */
#include "core/part.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

/* This file's part of the schedule's world, through its layer's (core/part.h). */
static inline fail_state *st(void) { return &core_now()->fail; }

evidence *fail_evidence(void) { return &st()->evidence; }
void explore_culprit(const volatile void *obj) { st()->evidence.culprit = obj; }

void fail_reset(void)
{
    st()->evidence = (evidence){.n = 0};
    st()->failed = false;
}

void fail_blame(const event *e)
{
    int i = event_index(e);
    if (i >= 0 && st()->evidence.n < (int)(sizeof st()->evidence.events / sizeof st()->evidence.events[0]))
        st()->evidence.events[st()->evidence.n++] = i;
}

bool fail_pending(void) { return st()->failed; }
const char *fail_kind(void) { return st()->kind; }
const char *fail_message(void) { return st()->message; }
void fail_catch(jmp_buf *where) { st()->unwind = where; }
jmp_buf *fail_catching(void) { return st()->unwind; }

static void record(const char *kind, const char *fmt, va_list ap)
{
    if (st()->failed) /* the first failure is the schedule's */
        return;
    st()->failed = true;
    snprintf(st()->kind, sizeof st()->kind, "%s", kind);
    vsnprintf(st()->message, sizeof st()->message, fmt, ap);
}

void fail_record(const char *kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(kind, fmt, ap);
    va_end(ap);
}

_Noreturn void fail_unwind(void)
{
    if (st()->unwind)
        longjmp(*st()->unwind, 1);
    /* Outside a schedule (nothing caught it): the failure line alone. */
    fflush(stderr);
    printf("\nexplore: FAILED (%s): %s\n", st()->kind, st()->message);
    fflush(stdout);
    _exit(1);
}

_Noreturn void explore_fail(const char *kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(kind, fmt, ap);
    va_end(ap);
    fail_unwind();
}
