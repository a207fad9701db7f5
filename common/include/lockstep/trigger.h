/**
 * @file trigger.h
 * @brief A one-shot manual trigger for tests and benchmarks.
 *
 * Awaiting a trigger always suspends; lockstep_trigger_fire() resumes the
 * waiter on the calling thread. It is the harness's way to decide exactly when
 * a task body completes (C++: `struct trigger` in tests/bench/cxx/harness.hpp).
 *
 * Not thread-safe by itself: arm it (let the waiter suspend) before handing
 * it to the thread that fires it, through something that orders the two (a
 * thread start, a mutex, a release/acquire pair).
 */
#ifndef LOCKSTEP_TRIGGER_H
#define LOCKSTEP_TRIGGER_H

#include "lockstep/coro.h"

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>

/** A one-shot trigger: at most one waiter, resumed by the next fire. */
typedef struct lockstep_trigger {
    lockstep_coro *waiter; /**< the suspended waiter, or NULL */
} lockstep_trigger;

/**
 * @brief Initializes an unarmed trigger.
 * @param t the trigger.
 * @par Thread safety
 * Before the trigger is shared.
 */
static inline void lockstep_trigger_init(lockstep_trigger *t)
{
    t->waiter = NULL;
}

/**
 * @brief `co_await trigger`, step 1: never ready.
 * @param t the trigger.
 * @return false.
 */
static inline bool lockstep_trigger_await_ready(const lockstep_trigger *t)
{
    (void)t;
    return false;
}

/**
 * @brief `co_await trigger`, step 2: arms the trigger with the waiter.
 * @param t an unarmed trigger (arming it twice is an assert).
 * @param h the awaiting coroutine.
 * @return true (always suspend).
 * @par Thread safety
 * Not thread-safe: arm before handing the trigger to the firing thread.
 */
static inline bool lockstep_trigger_await_suspend(lockstep_trigger *t, lockstep_coro *h)
{
    assert(!t->waiter && "lockstep_trigger: already armed (a trigger has one waiter)");
    t->waiter = h;
    return true;
}

/**
 * @brief Resumes the waiter, if any, on the calling thread, and disarms.
 * @param t the trigger.
 * @par Thread safety
 * One thread at a time; it must see the arming (see the file comment).
 */
static inline void lockstep_trigger_fire(lockstep_trigger *t)
{
    lockstep_coro *h = t->waiter;
    t->waiter = NULL;
    lockstep_coro_resume(h);
}

#endif /* LOCKSTEP_TRIGGER_H */
