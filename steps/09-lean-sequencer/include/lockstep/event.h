/**
 * @file event.h
 * @brief awaitable_event: a manual-reset event that coroutines can await.
 *
 * Once set, the event stays set: every coroutine waiting on it is resumed,
 * and later awaits complete at once, until awaitable_event_reset(). Awaiting
 * from a coroutine is the usual three steps (see coro.h), with the awaiter in
 * the awaiting coroutine's frame:
 * @code
 *     case 1:
 *         self->resume_point = 2;
 *         if (!awaitable_event_await_ready(&f->ev, &f->aw) &&
 *             awaitable_event_await_suspend(&f->ev, &f->aw, self))
 *             return NULL;
 *         // fall through
 *     case 2:
 *         err = awaitable_event_await_resume(&f->aw);   // 0, or ENOMEM (step 04)
 * @endcode
 *
 * These declarations are the same in every step that has the event; what
 * changes is the inside of ::awaitable_event, of the awaiter, and of event.c.
 *
 * @par Step 05: an intrusive list
 * The waiting coroutines form a linked list whose nodes live in their
 * awaiters, in the waiting coroutines' own frames: awaiting allocates
 * nothing, so it cannot fail, and registering is O(1).
 *
 * @par Step 07: no lock
 * One atomic word holds the whole state: "signaled" (the event's own
 * address), or the head of the waiter list (NULL: no waiters). An await
 * pushes its node with a compare-exchange; set() exchanges "signaled" in
 * and takes the whole list out with it. There is no mutex.
 */
#ifndef LOCKSTEP_EVENT_H
#define LOCKSTEP_EVENT_H

#include "lockstep/coro.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/** A waiting coroutine: a list node that lives in its awaiter. */
typedef struct awaitable_event_node {
    struct awaitable_event_node *next; /**< the next node (while waiting: the waiter that arrived before) */
    lockstep_coro *handle;             /**< the waiting coroutine */
} awaitable_event_node;

/** A manual-reset event; caller-allocated, see awaitable_event_init(). */
typedef struct awaitable_event {
    /** The event's whole state, in one word: the event's own address when
     *  signaled; otherwise the newest waiter's node (its `next` leads to the
     *  older ones: LIFO), or NULL when nobody waits. */
    _Atomic(void *) state;
} awaitable_event;

/** The awaiter: lives in the awaiting coroutine's frame for one await. */
typedef struct awaitable_event_awaiter {
    awaitable_event_node n; /**< this waiter's list node: no allocation needed. Between await_ready and
                                 await_suspend, `n.next` holds the state await_ready saw */
    int error;              /**< what await_resume returns: always 0 here (ENOMEM was step 04's) */
} awaitable_event_awaiter;

/**
 * @brief Initializes an unsignaled event with no waiters.
 * @param ev caller-allocated storage.
 * @return 0: nothing can fail (the return value is for the steps that have a mutex).
 * @par Thread safety
 * Before the event is shared.
 */
int awaitable_event_init(awaitable_event *ev);

/**
 * @brief Releases what the event holds.
 * @param ev an initialized event with no suspended waiters (set it first);
 *        uninitialized afterwards. A set() may still be running: it does not
 *        touch the event once it resumes the first waiter, so the last waiter
 *        it resumes may destroy the event.
 * @par Thread safety
 * Nothing else may use @p ev concurrently or afterwards.
 */
void awaitable_event_destroy(awaitable_event *ev);

/**
 * @brief Signals the event and resumes every waiting coroutine, in the order
 *        they started waiting, on the calling thread. Awaits that start
 *        afterwards complete at once.
 * @param ev an initialized event; set() on a set event resumes nobody.
 * @par Thread safety
 * Any thread, concurrently with awaits and other set() calls; it takes no
 * lock. set() does not touch @p ev after resuming the first waiter.
 */
void awaitable_event_set(awaitable_event *ev);

/**
 * @brief Makes the event unsignaled again (an addition to the article's
 *        event, which the benchmark needs to run many rounds).
 * @param ev an initialized event.
 * @par Thread safety
 * Any thread. An await racing a reset may see either state.
 */
void awaitable_event_reset(awaitable_event *ev);

/**
 * @brief `co_await event`, step 1: already signaled?
 * @param ev the event.
 * @param aw the awaiter, in the awaiting frame; this prepares it.
 * @return true if the event is set (skip the suspend step).
 * @par Thread safety
 * Any thread; seeing the event set here also shows what the setter wrote
 * before set().
 */
bool awaitable_event_await_ready(awaitable_event *ev, awaitable_event_awaiter *aw);

/**
 * @brief `co_await event`, step 2: registers @p h to be resumed by set().
 * @param ev the event.
 * @param aw the awaiter passed to awaitable_event_await_ready().
 * @param h the awaiting coroutine, with its resume point already set.
 * @return true if @p h is now suspended (set() may already be resuming it on
 *         another thread: touch nothing of it); false if it continues at once:
 *         the event was set meanwhile, or (in a step whose registration
 *         allocates: step 04) registering failed; the awaiter then reports
 *         ENOMEM and the event and its other waiters are untouched.
 * @par Thread safety
 * Any thread, concurrently with set(), reset() and other awaits.
 */
bool awaitable_event_await_suspend(awaitable_event *ev, awaitable_event_awaiter *aw, lockstep_coro *h);

/**
 * @brief `co_await event`, step 3: how the await ended.
 * @param aw the awaiter.
 * @return 0 when the event was signaled; ENOMEM when the waiter could not be
 *         registered (only in a step whose registration allocates: step 04).
 * @par Thread safety
 * The awaiting coroutine, once it continues.
 */
int awaitable_event_await_resume(const awaitable_event_awaiter *aw);

#endif /* LOCKSTEP_EVENT_H */
