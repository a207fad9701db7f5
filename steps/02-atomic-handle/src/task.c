/*
 * simple_task, step 02: the mutex is gone. One atomic exchange on each side
 * closes the race between completing and awaiting (2021-04-15, "Getting rid
 * of our mutex").
 *
 * m_waiting holds one of three things:
 *
 *     NULL                running: not completed, nobody awaiting
 *     &promise->coro      completed, nobody awaiting yet (the coroutine
 *                         never awaits itself, so its own handle is free to
 *                         mean "completed")
 *     anything else       the awaiting coroutine
 *
 * The completer exchanges in "completed" and resumes whatever it took out,
 * unless that was NULL. The awaiter exchanges in itself and suspends only if
 * it took out NULL; if it took out "completed", it continues at once. Each
 * side sees what the other did, whichever order the exchanges land in.
 */
#include "lockstep/task.h"

#include "lockstep/alloc.h"

#include <assert.h>
#include <errno.h>

/* ---- the promise: simple_promise_base in the articles ------------------- */

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
    atomic_init(&p->m_refcount, 2); /* the task object and the running coroutine */
    atomic_init(&p->m_waiting, NULL);
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
    /* release: publish m_holder to an awaiter that comes later;
     * acquire: see the frame of an awaiter that registered earlier. */
    lockstep_coro *waiter = atomic_exchange_explicit(&p->m_waiting, &p->coro, memory_order_acq_rel);
    simple_promise_decrement_ref(p);
    return waiter; /* C++: if (waiter) waiter.resume(); */
}

static bool simple_promise_client_await_ready(simple_promise *p)
{
    /* acquire: if it says "completed", m_holder is ours to read */
    return atomic_load_explicit(&p->m_waiting, memory_order_acquire) != NULL;
}

static bool simple_promise_client_await_suspend(simple_promise *p, lockstep_coro *handle)
{
#ifdef LOCKSTEP_CHECK_THEN_SIGN_UP
    /* The 04-15 article's opening race, kept for the explorer to find: check,
     * then sign up. A completion between the two resumes nobody (lost wake-up). */
    if (atomic_load_explicit(&p->m_waiting, memory_order_acquire) != NULL)
        return false;
    atomic_store_explicit(&p->m_waiting, handle, memory_order_release);
    return true;
#endif
    /* release: publish our suspended state to the completer that will resume us;
     * acquire: if it already completed, read the result it published. */
    lockstep_coro *old = atomic_exchange_explicit(&p->m_waiting, handle, memory_order_acq_rel);
    assert((old == NULL || old == &p->coro) && "simple_task_await_suspend: the task is already awaited");
    return old == NULL;
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
