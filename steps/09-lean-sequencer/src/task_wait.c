/*
 * simple_task_wait: a plain thread waits for a task by awaiting it with a
 * tiny coroutine of its own, whose only job is to wake the thread up.
 * It uses nothing but the public await functions, so it is the same in every
 * step until step 06, whose sequencer adds one rule: no blocking wait on a
 * thread that is draining its run queue of sequenced tasks. Step 08: the
 * await hands over to the body, which runs here, on the waiting thread,
 * until it finishes or suspends.
 */
#include "lockstep/sequencer.h"
#include "lockstep/task.h"

#include <assert.h>
#include <pthread.h>

typedef struct waker {
    lockstep_coro coro; /* the "awaiting coroutine" the task will resume */
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    bool woken;
} waker;

static lockstep_coro *waker_resume(lockstep_coro *self)
{
    waker *w = (waker *)self;
    pthread_mutex_lock(&w->mutex);
    w->woken = true;
    pthread_cond_signal(&w->cond); /* under the lock: the waiter frees w only after we unlock */
    pthread_mutex_unlock(&w->mutex);
    return NULL;
}

static void waker_destroy(lockstep_coro *self)
{
    (void)self; /* lives on the waiting thread's stack */
}

task_result simple_task_wait(simple_task *task)
{
    assert(task && task->m_promise && "simple_task_wait: empty task");
    if (!simple_task_await_ready(task)) {
        /* Step 06: in a drain (a sequencer's maker, say), a task whose turn
         * comes waits in this thread's run queue until we return: blocking
         * could wait for ever for a task that only this thread can start. */
        assert(!task_sequencer_thread_is_draining() &&
               "simple_task_wait from a task_sequencer maker (this thread drains sequenced tasks) would hang: "
               "what the maker queues starts only after it returns; hand that task out as the body, or co_await it");
        waker w;
        lockstep_coro_init(&w.coro, waker_resume, waker_destroy);
        /* With default attributes these cannot fail on Linux or macOS. */
        int err = pthread_mutex_init(&w.mutex, NULL);
        assert(err == 0 && "simple_task_wait: pthread_mutex_init failed");
        err = pthread_cond_init(&w.cond, NULL);
        assert(err == 0 && "simple_task_wait: pthread_cond_init failed");
        (void)err;
        w.woken = false;
        lockstep_coro_resume(simple_task_await_suspend(task, &w.coro)); /* start the body */
        pthread_mutex_lock(&w.mutex);
        while (!w.woken)
            pthread_cond_wait(&w.cond, &w.mutex);
        pthread_mutex_unlock(&w.mutex);
        pthread_cond_destroy(&w.cond);
        pthread_mutex_destroy(&w.mutex);
    }
    return simple_task_await_resume(task);
}
