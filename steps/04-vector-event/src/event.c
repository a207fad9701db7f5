/*
 * awaitable_event, step 04: a mutex, a flag and a growable array of waiting
 * handles (awaitable signal, part 3, 2021-03-03).
 *
 * set() marks the event signaled and takes the whole array out under the
 * lock, then resumes the waiters outside it, in the order they arrived. An
 * await checks the flag without the lock first (the fast path), then again
 * under the lock, where it cannot miss a set(): either it registers before
 * set() takes the array, or it sees the flag.
 */
#include "lockstep/event.h"

#include "lockstep/alloc.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

int awaitable_event_init(awaitable_event *ev)
{
    assert(ev && "awaitable_event_init: NULL event");
    int err = pthread_mutex_init(&ev->mutex, NULL);
    if (err)
        return err;
    atomic_init(&ev->signaled, false);
    ev->waiting = NULL;
    ev->count = ev->capacity = 0;
    return 0;
}

void awaitable_event_destroy(awaitable_event *ev)
{
    assert(ev && ev->count == 0 && "awaitable_event_destroy: coroutines are still waiting");
    lockstep_free(ev->waiting);
    pthread_mutex_destroy(&ev->mutex);
}

void awaitable_event_set(awaitable_event *ev)
{
    pthread_mutex_lock(&ev->mutex);
    /* release: an await that sees the flag without the lock also sees what
     * this thread wrote before set() (erratum 3, which part 3 shares). */
    atomic_store_explicit(&ev->signaled, true, memory_order_release);
    lockstep_coro **ready = ev->waiting; /* C++: std::swap(waiting, ready) */
    size_t count = ev->count;
    ev->waiting = NULL;
    ev->count = ev->capacity = 0;
    pthread_mutex_unlock(&ev->mutex);

    for (size_t i = 0; i < count; ++i)
        lockstep_coro_resume(ready[i]);
    lockstep_free(ready);
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

/* C++: waiting.push_back(handle), which may reallocate (and may throw). */
static int push_back(awaitable_event *ev, lockstep_coro *handle)
{
    if (ev->count == ev->capacity) {
        size_t capacity = ev->capacity ? 2 * ev->capacity : 4;
        lockstep_coro **bigger = lockstep_alloc(capacity * sizeof *bigger);
        if (!bigger)
            return ENOMEM; /* the array and its waiters are as they were */
        if (ev->count)
            memcpy(bigger, ev->waiting, ev->count * sizeof *bigger);
        lockstep_free(ev->waiting);
        ev->waiting = bigger;
        ev->capacity = capacity;
    }
    ev->waiting[ev->count++] = handle;
    return 0;
}

bool awaitable_event_await_suspend(awaitable_event *ev, awaitable_event_awaiter *aw, lockstep_coro *h)
{
    assert(ev && aw && h && "awaitable_event_await_suspend: NULL argument");
    pthread_mutex_lock(&ev->mutex);
    /* relaxed: the mutex orders this load after any set() that took the lock first */
    if (atomic_load_explicit(&ev->signaled, memory_order_relaxed)) {
        pthread_mutex_unlock(&ev->mutex);
        return false; /* set meanwhile: continue */
    }
    int err = push_back(ev, h);
    if (err)
        aw->error = err; /* not registered: the frame is still ours */
    pthread_mutex_unlock(&ev->mutex);
    /* From the unlock on, a registered h may be resumed (and its frame, aw
     * included, freed) by set() on another thread: use the local. */
    return err == 0;
}

int awaitable_event_await_resume(const awaitable_event_awaiter *aw)
{
    return aw->error;
}
