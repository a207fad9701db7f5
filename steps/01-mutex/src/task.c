/*
 * simple_task, step 01: a mutex guards the hand-off between the completing
 * coroutine and its awaiter, and a reference count decides who frees the
 * frame. This is the version the 2021-04-15 article starts from.
 *
 * The race the mutex closes:
 *
 *     awaiter                               completer
 *     if the coroutine has not completed {
 *                                           mark the coroutine completed
 *                                           resume whoever is waiting (nobody)
 *         sign up to be resumed }           -> the awaiter never wakes up
 *
 * Under the mutex, "check completed + sign up" and "mark completed + take the
 * waiter" cannot interleave.
 */
#include "lockstep/task.h"

#include "lockstep/alloc.h"

#include <assert.h>
#include <errno.h>

/* ---- the promise: simple_promise_base in the articles ------------------- */

static void simple_promise_destroy(simple_promise *p)
{
    pthread_mutex_destroy(&p->m_mutex);
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
    int err = pthread_mutex_init(&p->m_mutex, NULL);
    if (err) {
        lockstep_free(p);
        return err;
    }
    lockstep_coro_init(&p->coro, body, simple_promise_destroy_handle);
    atomic_init(&p->m_refcount, 2); /* the task object and the running coroutine */
    p->m_waiting = NULL;
    p->m_completed = false;
    p->m_holder = (task_result){0, 0};
    *promise = p;
    return 0;
}

/* The last of the two owners frees the frame. acq_rel: release so that this
 * owner's accesses to the frame happen before the free, acquire so that the
 * owner who frees sees the other owner's accesses. (The C++ uses a release
 * decrement and an acquire fence; one acq_rel RMW is the same instruction on
 * x86-64 and ThreadSanitizer understands it, which it does not for fences.) */
static void simple_promise_decrement_ref(simple_promise *p)
{
    if (atomic_fetch_sub_explicit(&p->m_refcount, 1, memory_order_acq_rel) == 1)
        simple_promise_destroy(p);
}

void simple_promise_return_value(simple_promise *p, task_result result)
{
    p->m_holder = result;
}

lockstep_coro *simple_promise_final_suspend(simple_promise *p)
{
    p->coro.resume_point = LOCKSTEP_CORO_DONE;
    pthread_mutex_lock(&p->m_mutex);
    lockstep_coro *waiter = p->m_waiting;
    p->m_completed = true;
    pthread_mutex_unlock(&p->m_mutex);
    simple_promise_decrement_ref(p);
    return waiter; /* C++: if (waiter) waiter.resume(); */
}

static bool simple_promise_client_await_ready(simple_promise *p)
{
    pthread_mutex_lock(&p->m_mutex);
    bool completed = p->m_completed;
    pthread_mutex_unlock(&p->m_mutex);
    return completed;
}

static bool simple_promise_client_await_suspend(simple_promise *p, lockstep_coro *handle)
{
    pthread_mutex_lock(&p->m_mutex);
    bool suspend = !p->m_completed;
    if (suspend) {
        assert(!p->m_waiting && "simple_task_await_suspend: the task is already awaited");
        p->m_waiting = handle;
    }
    pthread_mutex_unlock(&p->m_mutex);
    return suspend;
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
    simple_promise_decrement_ref(task->m_promise);
    task->m_promise = NULL;
}
