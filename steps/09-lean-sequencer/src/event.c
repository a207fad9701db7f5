/*
 * awaitable_event, step 07: no lock (beyond the articles: step 02's move
 * applied to step 05's event, as in cppcoro's async_manual_reset_event).
 *
 * One atomic word, `state`, holds everything the mutex used to guard:
 *
 *     NULL                 not signaled, nobody waits
 *     signaled_state(ev)   signaled (the event's own address: no node can be there)
 *     anything else        not signaled; the newest waiter's node, whose
 *                          `next` leads to the older ones (LIFO)
 *
 * An await pushes its node with a compare-exchange, or sees "signaled" and
 * continues. set() exchanges "signaled" in and takes the whole list out with
 * it; then, as in step 05, it reverses the list to resume the waiters in
 * arrival order, reading each node's `next` before resuming its coroutine.
 * reset() turns "signaled" back into NULL, and nothing else: it never drops
 * waiters. The list is never popped one node at a time, only taken whole,
 * which is why the push needs no ABA counter (README.md, "ABA").
 */
#include "lockstep/event.h"

#include <assert.h>

/* "Signaled": the event's own address. A node lives in an awaiter, an object
 * distinct from the event and alive while its node is linked, so no node can
 * have this address (step 02 used the coroutine's own handle the same way). */
static inline void *signaled_state(awaitable_event *ev)
{
    return ev;
}

int awaitable_event_init(awaitable_event *ev)
{
    assert(ev && "awaitable_event_init: NULL event");
    atomic_init(&ev->state, NULL);
    return 0;
}

void awaitable_event_destroy(awaitable_event *ev)
{
    assert(ev && "awaitable_event_destroy: NULL event");
    /* relaxed: nothing may use the event concurrently; whatever let the caller
     * destroy it (here, or a set() that resumed it) ordered the last use first. */
    void *state = atomic_load_explicit(&ev->state, memory_order_relaxed);
    assert((state == NULL || state == signaled_state(ev)) && "awaitable_event_destroy: coroutines are still waiting");
    (void)state;
}

void awaitable_event_set(awaitable_event *ev)
{
    void *signaled = signaled_state(ev);
    /* release: an await that sees "signaled" sees what this thread wrote before
     * set() (erratum 3); acquire: we read the nodes (handle, next) and resume the
     * frames that the awaits published with their release compare-exchange. */
    void *old = atomic_exchange_explicit(&ev->state, signaled, memory_order_acq_rel);
    if (old == signaled)
        return; /* set already: nobody waits */

    awaitable_event_node *lifo = old; /* newest first; from here on, ev is not touched */
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
    void *expected = signaled_state(ev);
    /* "signaled" -> NULL, nothing else: a list of waiters stays. Strong: one
     * attempt, no loop, so no spurious failure may leave the event set.
     * relaxed: reset publishes nothing and reads nothing; and as a
     * read-modify-write it breaks no release sequence, so an await that later
     * pushes on the NULL still publishes through to set(). */
    atomic_compare_exchange_strong_explicit(&ev->state, &expected, NULL, memory_order_relaxed,
                                            memory_order_relaxed);
}

bool awaitable_event_await_ready(awaitable_event *ev, awaitable_event_awaiter *aw)
{
    aw->error = 0;
    /* acquire: seeing "signaled" here (or in await_suspend's second look), the
     * waiter continues at once, so this must show what the setter wrote
     * (erratum 3). */
    void *state = atomic_load_explicit(&ev->state, memory_order_acquire);
    aw->n.next = state; /* await_suspend's guess at the head (unless "signaled") */
    return state == signaled_state(ev);
}

bool awaitable_event_await_suspend(awaitable_event *ev, awaitable_event_awaiter *aw, lockstep_coro *h)
{
    assert(ev && aw && h && "awaitable_event_await_suspend: NULL argument");
    aw->n.handle = h;
    /* aw->n.next holds the state await_ready saw, not "signaled" (it said so). */
    for (;;) {
        void *head = aw->n.next;
        /* success, release: publishes the node (handle, next) and the suspended
         * frame to the set() that takes the list out.
         * failure, relaxed: the value it hands back is not used; we look again. */
        if (atomic_compare_exchange_weak_explicit(&ev->state, &head, &aw->n, memory_order_release,
                                                  memory_order_relaxed))
            return true; /* from here on, set() on another thread may resume h and
                            free its frame, aw included: touch nothing of it */
        /* The word changed (another await pushed, or set() ran): look again
         * exactly as await_ready looks, with its acquire load, which also
         * refreshes aw->n.next. "Signaled": continue at once. */
        if (awaitable_event_await_ready(ev, aw))
            return false;
    }
}

int awaitable_event_await_resume(const awaitable_event_awaiter *aw)
{
    return aw->error;
}
