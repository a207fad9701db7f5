/**
 * @file task.h
 * @brief simple_task: an eager coroutine task that can be awaited once.
 *
 * A task body is a coroutine whose frame struct begins with a
 * ::simple_promise. Creating a task takes the compiler's steps by hand:
 * @code
 *     typedef struct answer_frame {
 *         simple_promise promise;   // first member: the frame is the promise
 *         int base;                 // a parameter, copied into the frame
 *     } answer_frame;
 *
 *     static lockstep_coro *answer_body(lockstep_coro *self)
 *     {
 *         answer_frame *f = (answer_frame *)self;
 *         simple_promise_return_value(&f->promise, (task_result){0, f->base + 42});  // co_return
 *         return simple_promise_final_suspend(&f->promise);
 *     }
 *
 *     int answer(simple_task *task, int base)
 *     {
 *         simple_promise *p;
 *         int err = simple_promise_create(&p, sizeof(answer_frame), answer_body);
 *         if (err)
 *             return err;                       // ENOMEM: nothing was created
 *         ((answer_frame *)p)->base = base;
 *         simple_task_start(task, p);           // runs the body to its first suspension
 *         return 0;
 *     }
 * @endcode
 * The awaiting side is `simple_task_await_ready` / `simple_task_await_suspend`
 * / `simple_task_await_resume` (see coro.h for the pattern), then
 * simple_task_release(). Plain threads use simple_task_wait().
 *
 * These declarations are the same in every step; what changes from step to
 * step is the inside of ::simple_promise and of task.c.
 *
 * @par Step 03: no reference count
 * `m_waiting` is one atomic pointer holding the whole state: running,
 * completed, abandoned (the task object was released), or the awaiting
 * coroutine. Whichever of completion and release comes second frees the
 * frame.
 */
#ifndef LOCKSTEP_TASK_H
#define LOCKSTEP_TASK_H

#include "lockstep/coro.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** What a task completes with (C++: the promise's result holder contents). */
typedef struct task_result {
    int error;      /**< 0, or an errno-style code the body failed with */
    intptr_t value; /**< the body's value when error == 0 */
} task_result;

/** The promise: the start of every task frame, shared by the task and the body. */
typedef struct simple_promise {
    lockstep_coro coro;          /**< the coroutine header; first, so a frame is a promise */
    _Atomic(void *) m_waiting;   /**< running (NULL), completed (1), abandoned (2), or the awaiter */
    task_result m_holder;        /**< the result, written by the body before final_suspend */
} simple_promise;

/** The task object: the owner's hold on the promise (C++: `promise_ptr`). */
typedef struct simple_task {
    simple_promise *m_promise; /**< NULL once released */
} simple_task;

/**
 * @brief Allocates a task frame with lockstep_alloc() and constructs its
 *        promise (the compiler's `operator new` + promise constructor).
 * @param promise receives the frame; the caller then copies the body's
 *        parameters into it and calls simple_task_start().
 * @param frame_size `sizeof` the body's frame struct, whose first member is a
 *        ::simple_promise. The rest of the frame is left uninitialized: the
 *        caller stores the body's parameters there.
 * @param body the body's resume function; it ends with
 *        simple_promise_return_value() and `return simple_promise_final_suspend(...)`.
 * @return 0; ENOMEM if the frame could not be allocated (nothing was
 *         created, nothing leaks); another errno value if constructing the
 *         promise failed (a step whose promise has a mutex: the error of
 *         pthread_mutex_init); the frame is then freed.
 * @par Thread safety
 * Any thread.
 */
int simple_promise_create(simple_promise **promise, size_t frame_size, lockstep_resume_fn body);

/**
 * @brief Hands the task to @p task and runs the body until its first
 *        suspension (get_return_object, then initial_suspend = suspend_never).
 * @param task receives the task object.
 * @param promise a frame from simple_promise_create(), not started yet.
 * @par Thread safety
 * The calling thread runs the body; the task may complete on another thread
 * as soon as the body suspends.
 */
void simple_task_start(simple_task *task, simple_promise *promise);

/**
 * @brief `co_return`: stores the body's result in the promise.
 * @param promise the body's own promise.
 * @param result what the task completes with.
 * @par Thread safety
 * Only the body, once, just before simple_promise_final_suspend().
 */
void simple_promise_return_value(simple_promise *promise, task_result result);

/**
 * @brief The body's last step: publishes completion and gives up the body's
 *        claim on the frame.
 * @param promise the body's own promise; the frame may be freed before this
 *        returns, so the body must not touch it afterwards.
 * @return the awaiting coroutine to resume (C++: `waiter.resume()`), or
 *         NULL. The body returns it from its resume function.
 * @par Thread safety
 * Only the body, once, as its last step; the task's owner may be awaiting or
 * releasing the task concurrently.
 */
lockstep_coro *simple_promise_final_suspend(simple_promise *promise);

/**
 * @brief `co_await task`, step 1: has the task completed already?
 * @param task an unreleased task, not awaited yet.
 * @return true if the result can be read at once (skip the suspend step).
 * @par Thread safety
 * The owner of @p task; the body may be completing concurrently.
 */
bool simple_task_await_ready(simple_task *task);

/**
 * @brief `co_await task`, step 2: registers @p awaiting to be resumed when
 *        the task completes.
 * @param task an unreleased task; a task can be awaited only once (a second
 *        await is an assert).
 * @param awaiting the awaiting coroutine, with its resume point already set
 *        to where it continues.
 * @return true if @p awaiting is now suspended (another thread may already be
 *         resuming it: touch nothing of it); false if the task completed in
 *         the meantime and @p awaiting continues at once.
 * @par Thread safety
 * The owner of @p task, after simple_task_await_ready() returned false; the
 * body may be completing concurrently.
 */
bool simple_task_await_suspend(simple_task *task, lockstep_coro *awaiting);

/**
 * @brief `co_await task`, step 3: the result.
 * @param task a completed, unreleased task.
 * @return the task's result.
 * @par Thread safety
 * The owner of @p task, after the await ready or suspend step said it has
 * completed (or after the awaiting coroutine was resumed).
 */
task_result simple_task_await_resume(simple_task *task);

/**
 * @brief Releases the task object (C++: the task's destructor). The frame is
 *        freed now if the body has finished, otherwise when it finishes.
 * @param task a task, or an empty one (nothing happens); empty afterwards.
 *        Releasing twice through copies of one task is an assert (from step 03).
 * @par Thread safety
 * The owner of @p task. A coroutine that is destroyed while suspended on the
 * task releases it this way. From step 03 on, if that release happens before
 * the completion's exchange, the task then never resumes the destroyed
 * coroutine; in steps 01 and 02 it still does (a use after free, see their
 * READMEs). A release racing a completion that may already be resuming the
 * coroutine is a race no design allows: whoever destroys a suspended
 * coroutine must know that nobody is resuming it.
 */
void simple_task_release(simple_task *task);

/**
 * @brief Blocks the calling thread until the task completes (for plain
 *        threads: tests, main). The task stays owned by the caller.
 * @param task an unreleased task, not awaited yet; this counts as its await.
 * @return the task's result.
 * @par Thread safety
 * Must not be called on the thread that has to complete the task.
 */
task_result simple_task_wait(simple_task *task);

#endif /* LOCKSTEP_TASK_H */
