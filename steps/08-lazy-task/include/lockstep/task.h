/**
 * @file task.h
 * @brief simple_task: a lazy coroutine task that can be awaited once.
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
 *         simple_task_start(task, p);           // hands it out; the body starts when awaited
 *         return 0;
 *     }
 * @endcode
 * The awaiting side is `simple_task_await_ready` / `simple_task_await_suspend`
 * / `simple_task_await_resume`, then simple_task_release(). Plain threads use
 * simple_task_wait(). From step 08, `await_suspend` returns the coroutine to
 * run next (the task's body), which the awaiting coroutine returns from its
 * resume function; the body's final suspension returns the awaiter:
 * @code
 *     case 1:
 *         self->resume_point = 2;
 *         if (!simple_task_await_ready(&f->task))
 *             return simple_task_await_suspend(&f->task, self);  // start the body
 *         // fall through
 *     case 2:
 *         result = simple_task_await_resume(&f->task);
 * @endcode
 *
 * Every function is declared as in step 01 but simple_task_await_suspend(), which now
 * returns the coroutine to run next (above); ::simple_promise and task.c change inside.
 *
 * @par Step 08: the lazy task
 * The body starts when the task is first awaited, on the awaiting thread,
 * after the awaiter is suspended: the body and the await never race, so
 * the promise holds a plain pointer to the awaiter and no atomic. The
 * frame is freed by simple_task_release(), never by the body.
 */
#ifndef LOCKSTEP_TASK_H
#define LOCKSTEP_TASK_H

#include "lockstep/coro.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** This step's task is lazy: await_suspend returns the coroutine to run next. */
#define LOCKSTEP_TASK_LAZY 1

/** What a task completes with (C++: the promise's result holder contents). */
typedef struct task_result {
    int error;      /**< 0, or an errno-style code the body failed with */
    intptr_t value; /**< the body's value when error == 0 */
} task_result;

/** The promise: the start of every task frame, shared by the task and the body. */
typedef struct simple_promise {
    lockstep_coro coro;          /**< the coroutine header; first, so a frame is a promise */
    lockstep_coro *m_continuation; /**< the awaiter, stored by await_suspend before the body starts */
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
 *        caller stores the body's parameters there. If they own something
 *        (another task, say), the caller also sets `promise->coro.destroy`
 *        to a function that releases it and then calls lockstep_free() on
 *        the frame: simple_task_release() runs it, whether or not the body
 *        ever started (C++: the frame's destructor of its parameter copies).
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
 * @brief Hands the task to @p task (get_return_object, then initial_suspend
 *        = suspend_always): the body does not run yet. It starts when the
 *        task is first awaited, and never if it is released unawaited.
 * @param task receives the task object.
 * @param promise a frame from simple_promise_create(), not started yet.
 * @par Thread safety
 * Any thread; nothing runs.
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
 * @brief The body's last step: marks the body finished and hands over to
 *        the awaiter (C++: final_suspend's `await_suspend` returning the
 *        continuation). The frame stays until the task is released.
 * @param promise the body's own promise. The awaiter it returns may release
 *        the task as soon as it runs, so the body must not touch its frame
 *        afterwards.
 * @return the awaiting coroutine, which the body returns from its resume
 *         function: the trampoline runs it next.
 * @par Thread safety
 * Only the body, once, as its last step.
 */
lockstep_coro *simple_promise_final_suspend(simple_promise *promise);

/**
 * @brief `co_await task`, step 1: has the task completed already?
 * @param task an unreleased task, not awaited yet.
 * @return false: a lazy task that was never awaited has not started (C++:
 *         cppcoro's `!handle || handle.done()`).
 * @par Thread safety
 * The owner of @p task.
 */
bool simple_task_await_ready(simple_task *task);

/**
 * @brief `co_await task`, step 2: stores @p awaiting as the task's
 *        continuation and hands over to the body (symmetric transfer).
 * @param task an unreleased task; a task can be awaited only once (a second
 *        await is an assert).
 * @param awaiting the awaiting coroutine, with its resume point already set
 *        to where it continues. It is suspended from now on.
 * @return the task's coroutine: the awaiting coroutine returns it from its
 *         resume function, and the trampoline starts the body. When the
 *         body finishes, it returns @p awaiting the same way.
 * @par Thread safety
 * The owner of @p task, after simple_task_await_ready() returned false.
 */
lockstep_coro *simple_task_await_suspend(simple_task *task, lockstep_coro *awaiting);

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
 * @brief Releases the task object (C++: the task's destructor): destroys
 *        the frame. A task that was never awaited is freed without running
 *        its body.
 * @param task a task, or an empty one (nothing happens); empty afterwards.
 *        Its body has either not started or finished; releasing a task
 *        whose body is still running (its awaiter was destroyed while
 *        suspended) is an assert.
 * @par Thread safety
 * The owner of @p task, after the await completed (the body's end happens
 * before the awaiter runs again) or before any await.
 */
void simple_task_release(simple_task *task);

/**
 * @brief Blocks the calling thread until the task completes (for plain
 *        threads: tests, main). The task stays owned by the caller.
 * @param task an unreleased task, not awaited yet; this counts as its await:
 *        it starts the body on the calling thread.
 * @return the task's result.
 * @par Thread safety
 * Must not be called on the thread that has to complete the task.
 */
task_result simple_task_wait(simple_task *task);

#endif /* LOCKSTEP_TASK_H */
