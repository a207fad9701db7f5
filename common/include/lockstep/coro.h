/**
 * @file coro.h
 * @brief A coroutine in C: the frame header and the trampoline.
 *
 * C has no coroutines, so lockstep writes by hand what a C++ compiler
 * generates for one. A coroutine is a heap-allocated frame struct whose first
 * member is a ::lockstep_coro (for a task: a simple_promise, which begins with
 * one). The frame holds the coroutine's parameters, its locals and the
 * awaiters it suspends on. Its resume function is a `switch` on
 * lockstep_coro::resume_point: every suspension point is a `case`.
 *
 * A resume function runs from the current resume point to the next
 * suspension point and returns the coroutine to run next, or NULL. Where the
 * C++ in the articles writes `waiter.resume()` (a nested call that grows the
 * stack by one level per chained resumption), the C writes `return waiter;`
 * and lockstep_coro_resume() loops: C's symmetric transfer. Resuming a chain
 * of any length therefore runs in constant stack.
 *
 * Awaiting something from a coroutine is always the same three steps, the
 * ones `co_await` performs:
 * @code
 *     case 1:
 *         self->resume_point = 2;          // set BEFORE publishing self
 *         if (!thing_await_ready(&f->thing) && thing_await_suspend(&f->thing, self))
 *             return NULL;                  // suspended: someone else resumes us
 *         // fall through
 *     case 2:
 *         result = thing_await_resume(&f->thing);
 * @endcode
 * The resume point is stored before `await_suspend` because, once that call
 * has published the handle, another thread may resume the coroutine at once.
 */
#ifndef LOCKSTEP_CORO_H
#define LOCKSTEP_CORO_H

#include <stdbool.h>
#include <stddef.h>

/** A coroutine handle: the header at the start of every coroutine frame. */
typedef struct lockstep_coro lockstep_coro;

/**
 * @brief Runs a coroutine from its resume point to its next suspension point.
 * @param self the coroutine's own frame.
 * @return the coroutine to run next (symmetric transfer), or NULL.
 */
typedef lockstep_coro *(*lockstep_resume_fn)(lockstep_coro *self);

/**
 * @brief Destroys a suspended coroutine: releases what its locals hold at the
 *        current resume point, then frees the frame.
 * @param self the coroutine's own frame; invalid afterwards.
 */
typedef void (*lockstep_destroy_fn)(lockstep_coro *self);

/** The header every coroutine frame begins with. */
struct lockstep_coro {
    /** Runs the coroutine to its next suspension point (see ::lockstep_resume_fn). */
    lockstep_resume_fn resume;
    /** Frees the frame of a suspended coroutine (see ::lockstep_destroy_fn). */
    lockstep_destroy_fn destroy;
    /** Which `case` resume jumps to: #LOCKSTEP_CORO_START first, #LOCKSTEP_CORO_DONE at the end. */
    int resume_point;
};

/** Resume point of a coroutine that has not started yet. */
#define LOCKSTEP_CORO_START 0
/** Resume point of a coroutine that ran to its end (C++: `handle.done()`). */
#define LOCKSTEP_CORO_DONE (-1)

/**
 * @brief Initializes a coroutine header (resume point #LOCKSTEP_CORO_START).
 * @param h the header at the start of a frame.
 * @param resume the frame's resume function; not NULL.
 * @param destroy the frame's destroy function; not NULL.
 * @par Thread safety
 * Call before the coroutine is visible to any other thread.
 */
static inline void lockstep_coro_init(lockstep_coro *h, lockstep_resume_fn resume, lockstep_destroy_fn destroy)
{
    h->resume = resume;
    h->destroy = destroy;
    h->resume_point = LOCKSTEP_CORO_START;
}

/**
 * @brief Resumes @p h and then every coroutine it transfers to, until one
 *        returns NULL. The C stack does not grow with the length of the chain.
 * @param h a suspended coroutine, or NULL (nothing happens).
 * @par Thread safety
 * The caller must be the only one resuming @p h (as in C++).
 */
static inline void lockstep_coro_resume(lockstep_coro *h)
{
    while (h) {
        h = h->resume(h);
        if (h) /* a second call site: see below */
            h = h->resume(h);
    }
}

/* Why the loop body calls twice: the commonest chain is two coroutines
 * handing over to each other, an awaiter and the task it starts (step 08),
 * or a completing task and its awaiter. Through one call site the indirect
 * call alternates between two targets, which the branch predictor guesses
 * badly; with two sites each one sees a single target. A round trip costs
 * about a third less (2.8 instead of 4.0 ns where it was measured). */

/**
 * @brief Destroys a suspended coroutine (C++: `handle.destroy()`).
 * @param h a suspended coroutine; invalid afterwards.
 * @par Thread safety
 * Nobody may resume @p h concurrently or afterwards.
 */
static inline void lockstep_coro_destroy(lockstep_coro *h)
{
    h->destroy(h);
}

/**
 * @brief Whether a coroutine has run to its end (C++: `handle.done()`).
 * @param h a coroutine that is not running.
 * @return true if its resume point is #LOCKSTEP_CORO_DONE.
 * @par Thread safety
 * Only when nothing can be resuming @p h (its last resumption happens
 * before this call).
 */
static inline bool lockstep_coro_done(const lockstep_coro *h)
{
    return h->resume_point == LOCKSTEP_CORO_DONE;
}

/**
 * @brief Allocates a frame of @p frame_size bytes with lockstep_alloc() and
 *        initializes the ::lockstep_coro at its start. The rest is zeroed.
 * @param frame_size size of the frame struct; at least `sizeof(lockstep_coro)`.
 * @param resume the frame's resume function.
 * @param destroy the frame's destroy function.
 * @return the frame, or NULL if the allocation failed (ENOMEM).
 * @par Thread safety
 * Any thread.
 */
lockstep_coro *lockstep_coro_new(size_t frame_size, lockstep_resume_fn resume, lockstep_destroy_fn destroy);

/**
 * @brief Frees a frame made by lockstep_coro_new(). A destroy function that
 *        has nothing else to release can be this function.
 * @param h the frame; invalid afterwards.
 * @par Thread safety
 * As lockstep_coro_destroy(): nobody may resume @p h concurrently or after.
 */
void lockstep_coro_free(lockstep_coro *h);

#endif /* LOCKSTEP_CORO_H */
