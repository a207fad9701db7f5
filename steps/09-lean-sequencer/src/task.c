/*
 * simple_task, step 08: the lazy task (the lazy-start articles of
 * 2022-09-13/14; cppcoro's task). The body does not run when the task is
 * created, but when it is first awaited:
 *
 *     await_suspend   stores the awaiter in m_continuation, returns the body
 *     the body        runs on the awaiter's thread, in the same trampoline
 *     final_suspend   returns m_continuation: the trampoline runs the awaiter
 *     release         frees the frame (the body has finished, or never ran)
 *
 * The awaiter is suspended before the body starts, so "has it completed?"
 * and "who waits?" are never asked at the same time: nothing races, and the
 * promise needs no atomic. Who happens-before whom:
 *
 *   - await_suspend's store of m_continuation is sequenced before the body
 *     starts (the same thread returns the body to the trampoline);
 *   - if the body suspends and another thread resumes it, whatever hands it
 *     over (an event, an executor, a trigger) synchronizes, as it must for
 *     any suspended coroutine: the body on that thread sees m_continuation;
 *   - the body's m_holder store is sequenced before final_suspend returns
 *     the awaiter, which runs next on the same thread and reads it.
 */
#include "lockstep/task.h"

#include "lockstep/alloc.h"

#include <assert.h>
#include <errno.h>

/* ---- the promise ------------------------------------------------------------ */

/* C++: handle.destroy(). The default for a frame whose parameters own
 * nothing: free it. Only before the body started or after it finished. */
static void simple_promise_destroy_handle(lockstep_coro *self)
{
    assert((self->resume_point == LOCKSTEP_CORO_START || lockstep_coro_done(self)) &&
           "simple_task_release: the body is still running (a lazy task is released after its await completes, or "
           "before it is awaited)");
    lockstep_free(self);
}

int simple_promise_create(simple_promise **promise, size_t frame_size, lockstep_resume_fn body)
{
    assert(promise && body && frame_size >= sizeof(simple_promise) && "simple_promise_create: bad argument");
    simple_promise *p = lockstep_alloc(frame_size);
    if (!p)
        return ENOMEM;
    lockstep_coro_init(&p->coro, body, simple_promise_destroy_handle);
    p->m_continuation = NULL;
    p->m_holder = (task_result){0, 0};
    *promise = p;
    return 0;
}

void simple_promise_return_value(simple_promise *p, task_result result)
{
    p->m_holder = result;
}

lockstep_coro *simple_promise_final_suspend(simple_promise *p)
{
    p->coro.resume_point = LOCKSTEP_CORO_DONE;
    return p->m_continuation; /* C++: return continuation; (symmetric transfer) */
}

/* ---- the task object ---------------------------------------------------------- */

void simple_task_start(simple_task *task, simple_promise *promise)
{
    assert(task && promise && promise->coro.resume_point == LOCKSTEP_CORO_START &&
           "simple_task_start: needs a fresh frame from simple_promise_create");
    task->m_promise = promise; /* get_return_object; initial_suspend is suspend_always */
}

bool simple_task_await_ready(simple_task *task)
{
    assert(task && task->m_promise && "simple_task_await_ready: empty task");
    assert(!task->m_promise->m_continuation && "simple_task_await_ready: the task is already awaited");
    (void)task;   /* only the asserts read it */
    return false; /* never awaited, so never started */
}

lockstep_coro *simple_task_await_suspend(simple_task *task, lockstep_coro *awaiting)
{
    assert(task && task->m_promise && awaiting && "simple_task_await_suspend: empty task or NULL awaiter");
    simple_promise *p = task->m_promise;
    assert(!p->m_continuation && "simple_task_await_suspend: the task is already awaited");
    p->m_continuation = awaiting;
    return &p->coro; /* start the body: the trampoline runs it next */
}

task_result simple_task_await_resume(simple_task *task)
{
    assert(task && task->m_promise && lockstep_coro_done(&task->m_promise->coro) &&
           "simple_task_await_resume: empty or unfinished task");
    return task->m_promise->m_holder;
}

void simple_task_release(simple_task *task)
{
    assert(task && "simple_task_release: NULL task");
    if (!task->m_promise)
        return;
    lockstep_coro_destroy(&task->m_promise->coro); /* C++: the task's destructor */
    task->m_promise = NULL;
}
