/*
 * Helpers for tests that race two threads: a hand-off flag and a jitter.
 *
 * A hand-off is a counter stored with release and awaited with acquire: what
 * the storing thread did before (create a task, arm a trigger) is visible to
 * the waiting thread after. The jitter is a varying busy loop so that
 * successive iterations meet the race at different points.
 */
#ifndef LOCKSTEP_RACE_H
#define LOCKSTEP_RACE_H

#include <sched.h>
#include <stdatomic.h>

static inline void race_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Publishes `value`: everything this thread did before is visible to a
 * thread that sees it in race_wait_for. */
static inline void race_publish(atomic_uint *flag, unsigned value)
{
    atomic_store_explicit(flag, value, memory_order_release);
}

/* Spins until *flag == value (yielding now and then: the machine may have
 * fewer cores than running threads). */
static inline void race_wait_for(atomic_uint *flag, unsigned value)
{
    for (unsigned spins = 0; atomic_load_explicit(flag, memory_order_acquire) != value; ++spins) {
        if (spins % 256 == 255)
            sched_yield();
        else
            race_pause();
    }
}

/* Busy-waits about `n` pause instructions. */
static inline void race_jitter(unsigned n)
{
    for (volatile unsigned i = 0; i < n; ++i)
        race_pause();
}

#endif
