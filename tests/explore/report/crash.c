/*
 * Crashes: a library assert (SIGABRT) or a fault ends the schedule, and
 * the explorer prints its trace like any other failure. A fault at the
 * poison address freed blocks are filled with (alloc.c) is a use after
 * free: plain code followed a pointer it read out of a freed block.
 */
#define _DEFAULT_SOURCE /* siginfo_t.si_addr, strsignal */
#include "model.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

/* Which thread crashed, written into the caller's buffer. */
static const char *who(char *buf, size_t size)
{
    int t = thread_self();
    if (t == EXPLORE_MAIN)
        return "the main thread";
    snprintf(buf, size, "T%d %s", t, thread_name(t));
    return buf;
}

/* A library assert (SIGABRT) or a fault ends the schedule: print its trace.
 * Not async-signal-safe, knowingly: the process is about to end, and the
 * other scenario threads are parked in the scheduler, not in stdio. */
static void on_crash(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    /* The name goes on this handler's own stack, neither in a static nor
     * in the world: the signal arrives on whichever thread faulted, maybe
     * in the middle of changing the world, and a buffer on its own stack
     * is memory nothing else writes, so a crash on another thread, or in
     * this handler, cannot overwrite it. */
    char name[80];
    char *addr = info->si_addr;
    if (sig == SIGABRT)
        explore_fail("assert", "a library assert failed (the C library printed its message on stderr)");
    if (alloc_is_poison(addr))
        explore_fail("use after free", "%s crashed (%s at %p) using a pointer it read out of a freed block (freed "
                     "blocks are filled with the address %p; see the last 'free' line above)", who(name, sizeof name),
                     strsignal(sig), (void *)addr, alloc_poison());
    explore_fail("crash", "%s crashed: %s at address %p", who(name, sizeof name), strsignal(sig), (void *)addr);
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
