/**
 * @file executor.h
 * @brief A small fixed thread pool that resumes coroutines.
 *
 * A coroutine moves onto the executor by awaiting it ("resume on this
 * executor": the article's `co_await context`). The queue is intrusive, like
 * the awaitable event of part 4: the node lives in the awaiter, in the
 * awaiting coroutine's frame, so posting never allocates and cannot fail.
 * Workers resume coroutines in FIFO order with lockstep_coro_resume().
 */
#ifndef LOCKSTEP_EXECUTOR_H
#define LOCKSTEP_EXECUTOR_H

#include "lockstep/coro.h"

#include <pthread.h>
#include <stdbool.h>

/** Most worker threads an executor can have. */
#define LOCKSTEP_EXECUTOR_MAX_THREADS 64

/** A queued coroutine: lives in the awaiter, so in the awaiting frame. */
typedef struct lockstep_executor_node {
    struct lockstep_executor_node *next; /**< next in FIFO order */
    lockstep_coro *handle;               /**< what to resume */
} lockstep_executor_node;

/** A fixed pool of worker threads with a FIFO queue of coroutines. */
typedef struct lockstep_executor {
    pthread_mutex_t mutex;                                /**< guards the queue and stopping */
    pthread_cond_t wake;                                  /**< signalled when work arrives or on stop */
    lockstep_executor_node *head;                         /**< oldest queued node */
    lockstep_executor_node *tail;                         /**< newest queued node */
    bool stopping;                                        /**< destroy has begun */
    unsigned nthreads;                                    /**< workers started */
    pthread_t threads[LOCKSTEP_EXECUTOR_MAX_THREADS];     /**< the workers */
} lockstep_executor;

/** Awaiter for `co_await executor`: keep it in the awaiting frame. */
typedef struct lockstep_executor_awaiter {
    lockstep_executor_node node; /**< the queue node; no allocation needed */
} lockstep_executor_awaiter;

/**
 * @brief Starts @p nthreads workers.
 * @param ex caller-allocated executor.
 * @param nthreads 1 .. #LOCKSTEP_EXECUTOR_MAX_THREADS.
 * @return 0; EINVAL for a bad @p nthreads; the error of pthread_mutex_init,
 *         pthread_cond_init or pthread_create (nothing is left running).
 */
int lockstep_executor_init(lockstep_executor *ex, unsigned nthreads);

/**
 * @brief Runs everything queued (including what queued coroutines queue in
 *        turn), then stops and joins the workers.
 * @param ex an initialized executor; uninitialized afterwards.
 * @par Thread safety
 * Not from a worker of @p ex. Nothing may be posted after it returns.
 */
void lockstep_executor_destroy(lockstep_executor *ex);

/**
 * @brief Queues @p h to be resumed on a worker.
 * @param ex a running executor.
 * @param node storage for the queue entry; must stay valid until @p h is
 *        resumed (keep it in @p h's frame).
 * @param h a suspended coroutine.
 * @par Thread safety
 * Any thread, including workers.
 */
void lockstep_executor_post(lockstep_executor *ex, lockstep_executor_node *node, lockstep_coro *h);

/**
 * @brief `co_await executor`, step 1: never ready (always hop).
 * @param ex the executor.
 * @return false.
 */
static inline bool lockstep_executor_await_ready(const lockstep_executor *ex)
{
    (void)ex;
    return false;
}

/**
 * @brief `co_await executor`, step 2: queues the awaiting coroutine.
 * @param ex a running executor.
 * @param aw the awaiter, in @p h's frame.
 * @param h the awaiting coroutine; a worker may resume it before this returns.
 * @return true (always suspend).
 */
static inline bool lockstep_executor_await_suspend(lockstep_executor *ex, lockstep_executor_awaiter *aw,
                                                   lockstep_coro *h)
{
    lockstep_executor_post(ex, &aw->node, h);
    return true;
}

#endif /* LOCKSTEP_EXECUTOR_H */
