/*
 * awaitable_event, step 05: the list of waiters is intrusive (awaitable
 * signal, part 4, 2021-03-04).
 *
 * A coroutine is suspended for as long as its awaiter exists, and the awaiter
 * lives in the coroutine's frame: memory that is already there. So the awaiter
 * carries the list node, and registering a waiter is pushing its node on a
 * singly linked list: O(1) under the lock, no allocation, nothing that can
 * fail. set() detaches the list under the lock (newest first), reverses it
 * outside the lock to resume the waiters in arrival order, and reads each
 * node's `next` before resuming its coroutine, because the resumed coroutine
 * ends the await and its node with it.
 */
#include "lockstep/event.h"

#include <assert.h>

int awaitable_event_init(awaitable_event *ev)
{
    assert(ev && "awaitable_event_init: NULL event");
    int err = pthread_mutex_init(&ev->mutex, NULL);
    if (err)
        return err;
    atomic_init(&ev->signaled, false);
    ev->head = NULL;
    return 0;
}

void awaitable_event_destroy(awaitable_event *ev)
{
    assert(ev && !ev->head && "awaitable_event_destroy: coroutines are still waiting");
    pthread_mutex_destroy(&ev->mutex);
}

void awaitable_event_set(awaitable_event *ev)
{
    pthread_mutex_lock(&ev->mutex);
    /* release: an await that sees the flag without the lock also sees what
     * this thread wrote before set() (erratum 3). */
    atomic_store_explicit(&ev->signaled, true, memory_order_release);
    awaitable_event_node *lifo = ev->head; /* C++: std::exchange(head, nullptr) */
    ev->head = NULL;
    pthread_mutex_unlock(&ev->mutex);

    awaitable_event_node *fifo = NULL; /* reverse: resume in arrival order */
    while (lifo) {
        awaitable_event_node *n = lifo;
        lifo = n->next;
        n->next = fifo;
        fifo = n;
    }
    while (fifo) {
#ifdef LOCKSTEP_ARTICLE_RESUME_BEFORE_NEXT
        /* Part 4's first version, kept for the explorer to find: resuming first
         * lets the waiter end its node, then `next` is read from freed memory. */
        lockstep_coro_resume(fifo->handle);
        fifo = fifo->next;
        continue;
#endif
        lockstep_coro *handle = fifo->handle;
        fifo = fifo->next; /* before resuming: the resumed coroutine ends its node. (The
                              article has "reverse->next" here: erratum 3.) */
        lockstep_coro_resume(handle);
    }
}

void awaitable_event_reset(awaitable_event *ev)
{
    pthread_mutex_lock(&ev->mutex);
    atomic_store_explicit(&ev->signaled, false, memory_order_relaxed);
    pthread_mutex_unlock(&ev->mutex);
}

bool awaitable_event_await_ready(awaitable_event *ev, awaitable_event_awaiter *aw)
{
    aw->error = 0;
    /* acquire: pairs with set()'s release (the article loads relaxed) */
    return atomic_load_explicit(&ev->signaled, memory_order_acquire);
}

bool awaitable_event_await_suspend(awaitable_event *ev, awaitable_event_awaiter *aw, lockstep_coro *h)
{
    assert(ev && aw && h && "awaitable_event_await_suspend: NULL argument");
    aw->n.handle = h; /* the node arrives ready to be linked */
    pthread_mutex_lock(&ev->mutex);
    /* relaxed: the mutex orders this load after any set() that took the lock first */
    if (atomic_load_explicit(&ev->signaled, memory_order_relaxed)) {
        pthread_mutex_unlock(&ev->mutex);
        return false; /* set meanwhile: continue */
    }
    aw->n.next = ev->head;
    ev->head = &aw->n;
    pthread_mutex_unlock(&ev->mutex);
    /* From the unlock on, h may be resumed (and its frame, aw included,
     * freed) by set() on another thread: touch nothing of it. */
    return true;
}

int awaitable_event_await_resume(const awaitable_event_awaiter *aw)
{
    return aw->error;
}
