/**
 * @file sequencer.h
 * @brief task_sequencer: runs queued tasks one after the other.
 *
 * The C form of Raymond Chen's `task_sequencer::QueueTaskAsync`
 * ("Serializing asynchronous operations in C++/WinRT", 2022-09-15, with the
 * fixes of 2025-03-28 and 2025-12-31). Each task_sequencer_queue() call
 * returns a ::simple_task at once; the task calls its `maker` (which creates
 * the real work, the *body* task) only after every task queued before it on
 * the same sequencer has completed, awaits the body, and completes with the
 * body's result. The order is the order of the queue calls.
 * @code
 *     static int make_write(void *ctx, simple_task *task)   // the maker
 *     {
 *         return write_async(task, ctx);   // creates the body task (lazy: the queued task's await starts it): 0 or ENOMEM
 *     }
 *
 *     task_sequencer seq;
 *     task_sequencer_init(&seq);
 *     simple_task a, b;
 *     task_sequencer_queue(&seq, make_write, "first", NULL, &a);   // runs now
 *     task_sequencer_queue(&seq, make_write, "second", NULL, &b);  // runs when a's body completes
 *     simple_task_release(&a);                                     // a still runs (not lazy); freed once it completes
 *     ... co_await b ...
 *     task_sequencer_destroy(&seq);                                // b still runs if pending
 * @endcode
 *
 * @par Step 06
 * The chain is a list of `chained_task` nodes, one per queued task; the
 * newest is `m_latest`, swapped by one atomic exchange. A node's `next` word
 * is the only shared state between a task and the one queued after it, and,
 * as `m_waiting` does for a task frame in step 03, it also decides who frees
 * the node. A failed queue call links nothing (the 2025 fix), and a backlog
 * of any length drains in constant stack (the 2025-12-31 fix, done here with
 * a per-thread run queue).
 *
 * @par Step 09
 * The node lives in the queued task's frame: the chain links frames, and
 * one word of the frame (`m_state`) holds both the chain's `next` and the
 * returned task's join. A queue call allocates one block, not two.
 */
#ifndef LOCKSTEP_SEQUENCER_H
#define LOCKSTEP_SEQUENCER_H

#include "lockstep/executor.h"
#include "lockstep/task.h"

#include <stdatomic.h>
#include <stdbool.h>

/**
 * A queued task's frame, which is also its link of the chain: allocated by
 * task_sequencer_queue(), freed by whichever comes last of "its task
 * completed", "its returned task was released" and "the next task was
 * linked behind it (or the sequencer let go of it)". Opaque: defined in
 * sequencer.c.
 */
typedef struct queued_task queued_task;

/** This step's chain node lives in the queued task's frame: a queue call allocates once. */
#define LOCKSTEP_SEQUENCER_NODE_IN_FRAME 1

/** A task sequencer; caller-allocated, see task_sequencer_init(). */
typedef struct task_sequencer {
    /** The frame of the task queued last, or NULL while nothing was ever queued (idle). */
    _Atomic(queued_task *) m_latest;
} task_sequencer;

/**
 * @brief The maker: creates and starts the body task (C++: the `maker`
 *        functor passed to QueueTaskAsync).
 * @param ctx the context given to task_sequencer_queue().
 * @param task receives the body task, started (it may have completed already).
 * @return 0 with @p task set; or an error (typically ENOMEM) with nothing
 *         created: the queued task then completes with that error and the
 *         chain goes on.
 * @par Thread safety
 * Called once, on the thread that runs the queued task (the executor's, if
 * one was given), after every earlier task of the sequencer has completed.
 * @par Blocking
 * A maker must not block waiting for a task (simple_task_wait()) unless it
 * was given an executor. Without one it runs inside its thread's drain of
 * sequenced tasks (see task_sequencer_thread_is_draining()): a task it
 * queues on an idle sequencer joins that thread's run queue and starts only
 * once the maker has returned, so waiting for it would wait for ever. Hand
 * such a task out as the body instead (`return task_sequencer_queue(other,
 * ..., task);`), or await it from the body coroutine. A blocking wait while
 * draining is an assert (when the task has not completed yet).
 */
typedef int (*task_sequencer_maker)(void *ctx, simple_task *task);

/**
 * @brief Initializes an idle sequencer: the first task queued runs at once.
 * @param seq caller-allocated storage.
 * @return 0 (the sequencer allocates nothing until a task is queued; the
 *         int is the project's init convention).
 * @par Thread safety
 * Before the sequencer is shared.
 */
int task_sequencer_init(task_sequencer *seq);

/**
 * @brief Lets go of the sequencer (C++: its destructor). Neither cancels nor
 *        waits: tasks still pending run in order, and everything is freed
 *        when the last of them finishes.
 * @param seq an initialized sequencer; uninitialized afterwards.
 * @par Thread safety
 * No task_sequencer_queue() on @p seq may run concurrently or afterwards;
 * queued tasks may be running or completing on any thread.
 */
void task_sequencer_destroy(task_sequencer *seq);

/**
 * @brief Queues a task (C++: `QueueTaskAsync`). The returned task calls
 *        `maker(ctx)` only after every task queued earlier on @p seq has
 *        completed, awaits the body it creates, and completes with the
 *        body's result, or with maker's error.
 *
 * If the sequencer is idle the task starts before this returns, on this
 * thread, or, when the calling thread is itself running a sequenced task,
 * as soon as that returns (see step 06's README.md, "Bounded stack"). Otherwise it is
 * started by the completion of the task before it, on whatever thread that
 * completes. With an @p executor, it first moves to a worker of that
 * executor and calls `maker` there.
 * @param seq an initialized sequencer.
 * @param maker creates the body task; not NULL.
 * @param ctx passed to @p maker; must stay valid until @p maker has run.
 * @param executor where `maker` runs (C++: the captured `apartment_context`),
 *        or NULL: on the thread that starts the task. It must stay running
 *        until the task has completed.
 * @param task receives the queued task. Releasing it does not cancel or
 *        skip the work: the task runs in its turn, and its frame is freed
 *        once it has completed and the chain has let go of it (a task
 *        queued behind it, or task_sequencer_destroy()).
 * @return 0; or ENOMEM, and then nothing was queued, nothing leaked, and
 *         tasks queued before and after still run in order.
 * @par Thread safety
 * Any thread, concurrently with other task_sequencer_queue() calls on the
 * same sequencer (they are ordered by their exchange of `m_latest`), but not
 * with task_sequencer_destroy(). A coroutine or a maker must not block its
 * thread waiting for a sequenced task (e.g. with simple_task_wait()): that
 * thread may be the one that has to run it (see ::task_sequencer_maker).
 */
int task_sequencer_queue(task_sequencer *seq, task_sequencer_maker maker, void *ctx, lockstep_executor *executor,
                         simple_task *task);

/**
 * @brief Whether the calling thread is draining its run queue: running
 *        sequenced tasks, their makers, and the coroutines they resume
 *        (step 06's README.md, "Bounded stack").
 *
 * While it is, a task whose turn comes on this thread (one queued on an
 * idle sequencer, or the successor of one that completes here) waits in the
 * run queue until the current one returns. simple_task_wait() asserts that
 * this is false before it blocks: blocking here could wait for ever for a
 * task that only this thread can start.
 * @return true inside a drain, false on a plain thread (and in a maker that
 *         runs on an executor's worker).
 * @par Thread safety
 * Any thread; it reads the calling thread's own state.
 */
bool task_sequencer_thread_is_draining(void);

#endif /* LOCKSTEP_SEQUENCER_H */
