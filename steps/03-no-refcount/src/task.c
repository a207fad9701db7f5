/*
 * simple_task, step 03: no reference count (2021-04-16, "Getting rid of our
 * reference count"). The one atomic word m_waiting carries the whole state:
 *
 *     running_ptr    (NULL)  the body runs, nobody awaits
 *     completed_ptr  (1)     the body finished; the result is published
 *     abandoned_ptr  (2)     the task object was released
 *     anything else          the awaiting coroutine
 *
 * Two life cycles run side by side: the body's (running -> completed) and
 * the task object's (-> awaiting, maybe -> abandoned). Each transition is an
 * exchange, and what it takes out says what to do:
 *
 *     exchanged in   took out     action
 *     completed      running      nothing: the task object will free the frame
 *     completed      awaiter      resume the awaiter
 *     completed      abandoned    free the frame: the task object is gone
 *     awaiter        running      suspend
 *     awaiter        completed    do not suspend (and put "completed" back)
 *     abandoned      completed    free the frame: the body is finished
 *     abandoned      running      nothing: the body frees the frame when done
 *     abandoned      awaiter      nothing: the awaiter was destroyed while
 *                                 suspended; the body frees the frame when
 *                                 done and never resumes the dead awaiter
 *
 * The last row is erratum 1: the article's abandon() frees the frame whenever
 * it takes out anything but "running", which frees a frame whose body is
 * still suspended. Build with LOCKSTEP_ARTICLE_ABANDON to get the article's
 * version (the test suite does, to show it failing).
 */
#include "lockstep/task.h"

#include "lockstep/alloc.h"

#include <assert.h>
#include <errno.h>

/* ---- the promise: simple_promise_base in the articles ------------------- */

/* The sentinels: constants, as the article's `static constexpr void*` members
 * are, under its names. Not addresses of any coroutine: never an awaiter. */
static void *const running_ptr = (void *)0;
static void *const completed_ptr = (void *)1;
static void *const abandoned_ptr = (void *)2;

static void simple_promise_destroy(simple_promise *p)
{
    lockstep_free(p);
}

/* C++: handle.destroy() on a task frame; only ever done at its final suspend. */
static void simple_promise_destroy_handle(lockstep_coro *self)
{
    simple_promise_destroy((simple_promise *)self);
}

int simple_promise_create(simple_promise **promise, size_t frame_size, lockstep_resume_fn body)
{
    assert(promise && body && frame_size >= sizeof(simple_promise) && "simple_promise_create: bad argument");
    simple_promise *p = lockstep_alloc(frame_size);
    if (!p)
        return ENOMEM;
    lockstep_coro_init(&p->coro, body, simple_promise_destroy_handle);
    atomic_init(&p->m_waiting, running_ptr);
    p->m_holder = (task_result){0, 0};
    *promise = p;
    return 0;
}

/* The task object is released. Whoever of {completion, release} is second
 * frees the frame. acq_rel: acquire, so that when we free the frame we see
 * everything the body did to it; release, so that when the body frees it
 * instead, our own earlier accesses to the frame happen before that free.
 * (The article uses acquire only and wonders, "I could be wrong".) */
static void simple_promise_abandon(simple_promise *p)
{
#ifndef LOCKSTEP_ARTICLE_ABANDON
    void *waiting = atomic_exchange_explicit(&p->m_waiting, abandoned_ptr, memory_order_acq_rel);
    assert(waiting != abandoned_ptr && "simple_task_release: the task was already released");
    if (waiting == completed_ptr)
        simple_promise_destroy(p);
#else
    /* The article's abandon(), kept to show erratum 1 failing: it frees the
     * frame when it takes out an awaiter, though the body is still running. */
    void *waiting = atomic_exchange_explicit(&p->m_waiting, abandoned_ptr, memory_order_acquire);
    if (waiting != running_ptr)
        simple_promise_destroy(p);
#endif
}

void simple_promise_return_value(simple_promise *p, task_result result)
{
    p->m_holder = result;
}

lockstep_coro *simple_promise_final_suspend(simple_promise *p)
{
    p->coro.resume_point = LOCKSTEP_CORO_DONE;
    /* release: publish m_holder to an awaiter that comes later;
     * acquire: see the frame of an awaiter that registered earlier, or,
     * if abandoned, everything the task's owner did before letting go. */
    void *waiting = atomic_exchange_explicit(&p->m_waiting, completed_ptr, memory_order_acq_rel);
    if (waiting == abandoned_ptr) {
        simple_promise_destroy(p); /* the task object is gone: we are second */
        return NULL;
    }
    return waiting; /* running_ptr is NULL: nobody to resume. C++: ...resume(); */
}

static bool simple_promise_client_await_ready(simple_promise *p)
{
    /* acquire: if it says "completed", m_holder is ours to read */
    void *waiting = atomic_load_explicit(&p->m_waiting, memory_order_acquire);
    assert((waiting == running_ptr || waiting == completed_ptr) &&
           "simple_task_await_ready: the task is already awaited or released");
    return waiting != running_ptr;
}

static bool simple_promise_client_await_suspend(simple_promise *p, lockstep_coro *handle)
{
    /* release: publish our suspended state to the completer that will resume us;
     * acquire: if it already completed, read the result it published. */
    void *waiting = atomic_exchange_explicit(&p->m_waiting, handle, memory_order_acq_rel);
    if (waiting == running_ptr)
        return true;
    assert(waiting == completed_ptr && "simple_task_await_suspend: the task is already awaited or released");
    /* Completed since await_ready: we continue at once, and "completed" goes
     * back so that abandon() frees the frame. Nobody else touches m_waiting
     * any more (the body is finished), so relaxed is enough. */
    atomic_store_explicit(&p->m_waiting, completed_ptr, memory_order_relaxed);
    return false;
}

static task_result simple_promise_client_await_resume(simple_promise *p)
{
    return p->m_holder;
}

/* ---- the task object: simple_task in the articles ----------------------- */

void simple_task_start(simple_task *task, simple_promise *promise)
{
    assert(task && promise && promise->coro.resume_point == LOCKSTEP_CORO_START &&
           "simple_task_start: needs a fresh frame from simple_promise_create");
    task->m_promise = promise;           /* get_return_object */
    lockstep_coro_resume(&promise->coro); /* initial_suspend is suspend_never: run now */
}

bool simple_task_await_ready(simple_task *task)
{
    assert(task && task->m_promise && "simple_task_await_ready: empty task");
    return simple_promise_client_await_ready(task->m_promise);
}

bool simple_task_await_suspend(simple_task *task, lockstep_coro *awaiting)
{
    assert(task && task->m_promise && awaiting && "simple_task_await_suspend: empty task or NULL awaiter");
    return simple_promise_client_await_suspend(task->m_promise, awaiting);
}

task_result simple_task_await_resume(simple_task *task)
{
    assert(task && task->m_promise && "simple_task_await_resume: empty task");
    return simple_promise_client_await_resume(task->m_promise);
}

void simple_task_release(simple_task *task)
{
    assert(task && "simple_task_release: NULL task");
    if (!task->m_promise)
        return;
    simple_promise_abandon(task->m_promise); /* C++: promise_deleter */
    task->m_promise = NULL;
}
