/*
 * The executor: a mutex, a condition variable and an intrusive FIFO.
 * Boring on purpose; it is test and benchmark infrastructure, not a subject
 * of the series.
 */
#include "lockstep/executor.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>

static lockstep_executor_node *pop_locked(lockstep_executor *ex)
{
    lockstep_executor_node *n = ex->head;
    ex->head = n->next;
    if (!ex->head)
        ex->tail = NULL;
    return n;
}

static void *worker(void *arg)
{
    lockstep_executor *ex = arg;
    pthread_mutex_lock(&ex->mutex);
    for (;;) {
        while (!ex->head && !ex->stopping)
            pthread_cond_wait(&ex->wake, &ex->mutex);
        if (!ex->head)
            break; /* stopping and drained */
        lockstep_executor_node *n = pop_locked(ex);
        /* Read the handle before unlocking: once resumed, the coroutine may reuse its node. */
        lockstep_coro *h = n->handle;
        pthread_mutex_unlock(&ex->mutex);
        lockstep_coro_resume(h);
        pthread_mutex_lock(&ex->mutex);
    }
    pthread_mutex_unlock(&ex->mutex);
    return NULL;
}

static void stop_and_join(lockstep_executor *ex)
{
    pthread_mutex_lock(&ex->mutex);
    ex->stopping = true;
    pthread_cond_broadcast(&ex->wake);
    pthread_mutex_unlock(&ex->mutex);
    for (unsigned i = 0; i < ex->nthreads; ++i)
        pthread_join(ex->threads[i], NULL);
    pthread_cond_destroy(&ex->wake);
    pthread_mutex_destroy(&ex->mutex);
}

int lockstep_executor_init(lockstep_executor *ex, unsigned nthreads)
{
    if (nthreads == 0 || nthreads > LOCKSTEP_EXECUTOR_MAX_THREADS)
        return EINVAL;
    ex->head = ex->tail = NULL;
    ex->stopping = false;
    ex->nthreads = 0;
    int err = pthread_mutex_init(&ex->mutex, NULL);
    if (err)
        return err;
    err = pthread_cond_init(&ex->wake, NULL);
    if (err) {
        pthread_mutex_destroy(&ex->mutex);
        return err;
    }
    for (; ex->nthreads < nthreads; ++ex->nthreads) {
        err = pthread_create(&ex->threads[ex->nthreads], NULL, worker, ex);
        if (err) {
            stop_and_join(ex);
            return err;
        }
    }
    return 0;
}

void lockstep_executor_destroy(lockstep_executor *ex)
{
    /* Workers leave only when the queue is empty, so everything posted runs. */
    stop_and_join(ex);
    assert(!ex->head && "lockstep_executor_destroy: work left in the queue");
}

void lockstep_executor_post(lockstep_executor *ex, lockstep_executor_node *node, lockstep_coro *h)
{
    assert(ex && node && h && "lockstep_executor_post: NULL argument");
    node->next = NULL;
    node->handle = h;
    pthread_mutex_lock(&ex->mutex);
    if (ex->tail)
        ex->tail->next = node;
    else
        ex->head = node;
    ex->tail = node;
    pthread_cond_signal(&ex->wake);
    pthread_mutex_unlock(&ex->mutex);
}
