/*
 * task_sequencer, step 06 ("Serializing asynchronous operations in
 * C++/WinRT", 2022-09-15, with the fixes of 2025-03-28 and 2025-12-31).
 *
 * Every queued task gets a chained_task node. A node's `next` word holds:
 *
 *     NULL           its task is running (or waits its turn); nobody is queued behind it
 *     completed()    its task has completed; nobody is queued behind it yet
 *     abandoned()    the sequencer was destroyed while this was the newest node
 *     anything else  the queued task (its frame) that runs after this one
 *
 * Each node sees exactly two exchanges: complete() by its own task, and
 * either continue_with() by the queue call of the task behind it or
 * abandon() by task_sequencer_destroy(). As with step 03's m_waiting, what an
 * exchange takes out says whether the other one has happened, so whichever
 * comes second frees the node: no reference count.
 *
 *     exchanged in   took out      action
 *     a task         NULL          nothing: complete() will start it and free the node
 *     a task         completed()   free the node; start the task now
 *     completed()    NULL          nothing: continue_with() or abandon() frees the node
 *     completed()    a task        free the node; start that task
 *     completed()    abandoned()   free the node; nobody to start
 *     abandoned()    NULL          nothing: complete() frees the node
 *     abandoned()    completed()   free the node
 *
 * Build with LOCKSTEP_ARTICLE_LINK_FIRST to get the 2022 order, which links
 * the node before the task exists (erratum 6; the test suite does, to show
 * the chain wedging when creating the task fails).
 *
 * Step 08: tasks are lazy, but a queued task is not: it runs in its turn
 * whether or not anyone awaits it (QueueTaskAsync returns a hot operation).
 * So its frame carries two coroutines: the article's lambda, which the chain
 * starts (`hot`), and the returned task's own coroutine, which only joins
 * the await to the lambda's end. That join is step 03's race between
 * completion and await, so it keeps step 03's one atomic word, here and
 * nowhere else.
 */
#include "lockstep/sequencer.h"

#include "lockstep/alloc.h"

#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* ---- chained_task: a link of the chain ------------------------------------ */

struct chained_task {
    _Atomic(void *) next; /* see the table above */
};

/* The sentinels: functions, as the article's completed() is (task.c's are constants, as its article's). */
static inline void *completed(void)
{
    return (void *)1;
}

static inline void *abandoned(void)
{
    return (void *)2;
}

static void chained_task_free(chained_task *node)
{
    lockstep_free(node);
}

/* Links `h` behind `node`. Returns `h` if it must run now (node's task has
 * already completed), else NULL: node's complete() will start it. The
 * article calls h() here; the C returns it, as final_suspend does.
 * acq_rel: release publishes h's frame (its copied arguments, its resume
 * point) to the thread whose complete() takes h out; acquire, because when
 * we take out completed(), h runs here and must see everything the task
 * before it did, and we free the node that task's complete() wrote. */
static lockstep_coro *chained_task_continue_with(chained_task *node, lockstep_coro *h)
{
    void *next = atomic_exchange_explicit(&node->next, h, memory_order_acq_rel);
    if (next == NULL)
        return NULL;
    assert(next == completed() && "continue_with: a task is already queued behind this node");
    chained_task_free(node); /* complete() came first: we are second */
    return h;
}

/* The task of `node` has completed. Returns the task queued behind it, to
 * start now, or NULL.
 * acq_rel: release, because a continue_with() that comes later takes out
 * completed() and starts its task, which must see this task's effects;
 * acquire, because when we take out a task we start it and must see its
 * frame as the queuing thread wrote it, and we free the node. */
static lockstep_coro *chained_task_complete(chained_task *node)
{
    void *next = atomic_exchange_explicit(&node->next, completed(), memory_order_acq_rel);
    if (next == NULL)
        return NULL; /* nobody behind us yet: continue_with() or abandon() frees the node */
    assert(next != completed() && "complete: the node's task completed twice");
    chained_task_free(node); /* we are second */
    return next == abandoned() ? NULL : next;
}

/* The sequencer lets go of its newest node (C++: m_latest's shared_ptr is
 * destroyed). acq_rel: acquire, because if the task has completed we free a
 * node its complete() wrote; release, because if it has not, its complete()
 * frees the node, after our exchange. */
static void chained_task_abandon(chained_task *node)
{
    void *next = atomic_exchange_explicit(&node->next, abandoned(), memory_order_acq_rel);
    if (next == completed())
        chained_task_free(node);
    else
        assert(next == NULL && "task_sequencer_destroy: a task_sequencer_queue call is still running");
}

/* ---- the run queue: a bounded stack for any backlog ------------------------
 *
 * The article starts the next task from inside complete(), nested in the
 * previous one, so a backlog of N tasks that complete synchronously nests N
 * deep (erratum 5). Here a task whose turn has come is started by
 * run_in_turn(): if this thread is already running sequenced tasks, it only
 * joins this thread's FIFO and the outermost call starts it when the current
 * one returns. The link lives in the queued task's own frame: no allocation,
 * nothing that can fail. */

typedef struct queued_task queued_task;

typedef struct run_queue {
    queued_task *head, *tail; /* started in FIFO order */
    bool draining;            /* an outer run_in_turn or completer is running them */
} run_queue;

static _Thread_local run_queue t_run_queue;

/* ---- the queued task: the article's lambda coroutine ----------------------- */

struct queued_task {
    simple_promise promise;       /* first: the frame is the returned task's frame */
    lockstep_coro hot;            /* the article's lambda: the chain starts it in its turn */
    _Atomic(void *) m_waiting;    /* step 03's word: running, completed, abandoned, or the awaiting promise */
    chained_task *current;        /* the completer's node (C++: completer{ current }) */
    task_sequencer_maker maker;   /* copied in before the first suspension */
    void *ctx;                    /* maker's argument */
    lockstep_executor *executor;  /* C++: context; NULL: no hop */
    lockstep_executor_awaiter hop; /* co_await context */
    simple_task body;             /* co_await maker() */
    queued_task *run_next;        /* link in a thread's run queue */
};

/* The frame whose lambda is `h`. */
static queued_task *queued_task_of(lockstep_coro *h)
{
    return (queued_task *)((char *)h - offsetof(queued_task, hot));
}

static void run_queue_push(run_queue *q, queued_task *t)
{
    t->run_next = NULL;
    if (q->tail)
        q->tail->run_next = t;
    else
        q->head = t;
    q->tail = t;
}

static queued_task *run_queue_pop(run_queue *q)
{
    queued_task *t = q->head;
    if (t) {
        q->head = t->run_next;
        if (!q->head)
            q->tail = NULL;
    }
    return t;
}

/* Runs `first` (if any) and then every task joining the queue meanwhile,
 * each at this depth of the stack. */
static void run_queue_drain(run_queue *q, queued_task *first)
{
    for (queued_task *t = first; t; t = run_queue_pop(q))
        lockstep_coro_resume(&t->hot); /* t may be freed once it returns */
}

/* Starts `t`, whose turn has come, without nesting: see above. */
static void run_in_turn(queued_task *t)
{
    run_queue *q = &t_run_queue;
    if (q->draining) {
        run_queue_push(q, t);
        return;
    }
    q->draining = true;
    run_queue_drain(q, t);
    q->draining = false;
}

/* The rule for blocking waits. Inside a drain, a task whose turn comes only
 * joins the run queue: a maker that queues on an idle sequencer and then
 * blocks on that task (with simple_task_wait) would wait for ever, since the
 * task starts only once the maker has returned. simple_task_wait asks this
 * before it blocks. */
bool task_sequencer_thread_is_draining(void)
{
    return t_run_queue.draining;
}

/* The end of a queued task has two coroutines to run: the successor that
 * complete() took out and the awaiter that final_suspend() took out. C's
 * `return next;` runs one in constant stack. With no successor (the common
 * case), return the awaiter. Inside a drain, queue the successor and return
 * the awaiter. Otherwise become the drain: run the awaiter here (whatever it
 * leads to only queues), then the successor and all that queues behind it. */
static lockstep_coro *hand_off(lockstep_coro *successor, lockstep_coro *awaiter)
{
    if (!successor)
        return awaiter;
    run_queue *q = &t_run_queue;
    if (q->draining) {
        run_queue_push(q, queued_task_of(successor));
        return awaiter;
    }
    q->draining = true;
    lockstep_coro_resume(awaiter);
    run_queue_drain(q, queued_task_of(successor));
    q->draining = false;
    return NULL;
}

/* ---- the returned task: joins its await to the lambda's end ----------------
 *
 * Step 03's sentinels in m_waiting; what an exchange takes out says whether
 * the other side has been there:
 *
 *     exchanged in   took out     action
 *     completed      running      nothing: release frees the frame
 *     completed      awaiting     hand over to the awaiter
 *     completed      abandoned    free the frame: the task object is gone
 *     awaiting       running      suspend: the lambda's end resumes the awaiter
 *     awaiting       completed    hand over to the awaiter now
 *     abandoned      running      nothing: the lambda frees the frame at its end
 *     abandoned      awaiting     nothing: the awaiter was destroyed while
 *                                 suspended (erratum 1's fix, as in step 03)
 *     abandoned      completed    free the frame (the sentinels: step 03's, which task.c no longer has) */
static void *const running_ptr = (void *)0;
static void *const completed_ptr = (void *)1;
static void *const abandoned_ptr = (void *)2;

/* The lambda's end. acq_rel: release publishes m_holder to an awaiter that
 * comes later; acquire, because we resume an awaiter that registered
 * earlier, or free a frame its owner let go of. */
static lockstep_coro *queued_task_final_suspend(queued_task *f)
{
    void *waiting = atomic_exchange_explicit(&f->m_waiting, completed_ptr, memory_order_acq_rel);
    if (waiting == abandoned_ptr) {
        lockstep_free(f);
        return NULL;
    }
    if (waiting == running_ptr)
        return NULL;
    return simple_promise_final_suspend(&f->promise); /* the awaiter, to run next */
}

/* The returned task's coroutine: simple_task_await_suspend() hands over to
 * it. acq_rel: release publishes the awaiter (m_continuation, its suspended
 * frame) to the lambda's end; acquire, to read m_holder if it came first. */
static lockstep_coro *queued_task_await(lockstep_coro *self)
{
    queued_task *f = (queued_task *)self;
    self->resume_point = 1; /* suspended on the lambda */
    void *waiting = atomic_exchange_explicit(&f->m_waiting, self, memory_order_acq_rel);
    if (waiting == running_ptr)
        return NULL;
    assert(waiting == completed_ptr && "queued task: awaited twice or after its release");
    return simple_promise_final_suspend(&f->promise);
}

/* simple_task_release() of the returned task. Awaited to the end: both
 * sides are done, free the frame. Otherwise (never awaited, or its awaiter
 * destroyed while suspended) step 03's abandon. acq_rel: acquire to free
 * a frame the lambda wrote; release so that our accesses happen before the
 * lambda's free. */
static void queued_task_release(lockstep_coro *self)
{
    queued_task *f = (queued_task *)self;
    if (lockstep_coro_done(self)) {
        lockstep_free(f);
        return;
    }
    void *waiting = atomic_exchange_explicit(&f->m_waiting, abandoned_ptr, memory_order_acq_rel);
    assert(waiting != abandoned_ptr && "simple_task_release: the task was already released");
    if (waiting == completed_ptr)
        lockstep_free(f);
}

/* The lambda is only ever resumed, never destroyed from outside. */
static void queued_task_hot_destroy(lockstep_coro *self)
{
    (void)self;
    assert(!"queued task: its lambda is never destroyed from outside");
}

/* The completer (C++: ~completer, which runs last because the completer is
 * the first local). Called on every path out of the task, after the body
 * is released and maker and ctx are done with: the successor may start only
 * once this task has cleaned up. */
static lockstep_coro *completer(queued_task *f, task_result result)
{
    f->hot.resume_point = LOCKSTEP_CORO_DONE;
    simple_promise_return_value(&f->promise, result);
    lockstep_coro *successor = chained_task_complete(f->current);
    lockstep_coro *awaiter = queued_task_final_suspend(f); /* f may be freed now */
    return hand_off(successor, awaiter);
}

/*  task(current, maker, context, suspend)
 *  {
 *      completer completer{ current };
 *      co_await suspend;             // initial suspension: someone else starts us in our turn
 *      co_await context;             // resume point 2: on the executor, if one was given
 *      co_return co_await maker();   // resume point 3: the body completed
 *  }
 */
static lockstep_coro *queued_task_resume(lockstep_coro *self)
{
    queued_task *f = queued_task_of(self);
    switch (self->resume_point) {
    case 0:
        /* co_await suspend is the lambda's initial suspension: it is created
         * suspended, and `hot` is the handle continue_with() publishes. */
        if (f->executor) {
            self->resume_point = 2;
            if (!lockstep_executor_await_ready(f->executor) &&
                lockstep_executor_await_suspend(f->executor, &f->hop, self))
                return NULL;
        }
        /* fall through */
    case 2: {
        int err = f->maker(f->ctx, &f->body);
        if (err) {
            assert(!f->body.m_promise && "task_sequencer maker: failed but handed out a task");
            return completer(f, (task_result){err, 0});
        }
        assert(f->body.m_promise && "task_sequencer maker: returned 0 without a task");
        self->resume_point = 3;
        if (!simple_task_await_ready(&f->body))
            return simple_task_await_suspend(&f->body, self); /* start the body */
    }
        /* fall through */
    case 3: {
        task_result result = simple_task_await_resume(&f->body);
        simple_task_release(&f->body);
        return completer(f, result);
    }
    }
    assert(!"queued_task: resumed after it completed");
    return NULL;
}

/* ---- the sequencer ----------------------------------------------------------- */

int task_sequencer_init(task_sequencer *seq)
{
    assert(seq && "task_sequencer_init: NULL sequencer");
    /* Idle: the first queued task finds no node before it and runs at once
     * (the article seeds m_latest with a completed node instead, which
     * would make init allocate, and fail). */
    atomic_init(&seq->m_latest, NULL);
    return 0;
}

void task_sequencer_destroy(task_sequencer *seq)
{
    assert(seq && "task_sequencer_destroy: NULL sequencer");
    /* relaxed: no queue call runs concurrently, and the caller's own
     * synchronization orders the last one before us */
    chained_task *latest = atomic_load_explicit(&seq->m_latest, memory_order_relaxed);
    if (latest)
        chained_task_abandon(latest);
}

static chained_task *chained_task_new(void)
{
    chained_task *node = lockstep_alloc(sizeof *node);
    if (node)
        atomic_init(&node->next, NULL); /* running, nobody behind */
    return node;
}

/* Creates the queued task for `current`, suspended until its turn.
 * Everything it needs is copied into its frame now: after the
 * queue call returns it never touches the caller's stack or the sequencer. */
static int queued_task_create(simple_task *task, chained_task *current, task_sequencer_maker maker, void *ctx,
                              lockstep_executor *executor)
{
    simple_promise *p;
    int err = simple_promise_create(&p, sizeof(queued_task), queued_task_await);
    if (err)
        return err;
    p->coro.destroy = queued_task_release;
    queued_task *f = (queued_task *)p;
    lockstep_coro_init(&f->hot, queued_task_resume, queued_task_hot_destroy);
    atomic_init(&f->m_waiting, running_ptr);
    f->current = current;
    f->maker = maker;
    f->ctx = ctx;
    f->executor = executor;
    f->body.m_promise = NULL;
    f->run_next = NULL;
    simple_task_start(task, p); /* hands it out; the lambda waits for its turn */
    return 0;
}

/* Starts the task if continue_with() (or an idle sequencer) says so. */
static void start_if_its_turn(chained_task *previous, simple_task *task)
{
    lockstep_coro *h = &((queued_task *)task->m_promise)->hot;
    lockstep_coro *now = previous ? chained_task_continue_with(previous, h) : h; /* NULL previous: idle */
    if (now)
        run_in_turn(queued_task_of(now));
}

#ifndef LOCKSTEP_ARTICLE_LINK_FIRST

int task_sequencer_queue(task_sequencer *seq, task_sequencer_maker maker, void *ctx, lockstep_executor *executor,
                         simple_task *task)
{
    assert(seq && maker && task && "task_sequencer_queue: NULL argument");
    /* (1) the node, (2) the task: either can fail, and nothing is linked yet */
    chained_task *current = chained_task_new();
    if (!current)
        return ENOMEM;
    int err = queued_task_create(task, current, maker, ctx, executor);
    if (err) {
        chained_task_free(current);
        return err;
    }
    /* (3) only now link the node; nothing after this can fail. acq_rel:
     * release publishes the new node's initial state to the queue call that
     * takes it out next; acquire lets us see the initial state of the node
     * we take out, published by the queue call that put it there. */
    chained_task *previous = atomic_exchange_explicit(&seq->m_latest, current, memory_order_acq_rel);
    /* (4) continue_with; the task was handed out in (2) */
    start_if_its_turn(previous, task);
    return 0;
}

#else

/* The 2022 article's order (erratum 6): the node becomes m_latest before the
 * task exists. If creating the task fails, nobody will ever complete the new
 * node or continue the previous one: every later task waits forever. */
int task_sequencer_queue(task_sequencer *seq, task_sequencer_maker maker, void *ctx, lockstep_executor *executor,
                         simple_task *task)
{
    assert(seq && maker && task && "task_sequencer_queue: NULL argument");
    chained_task *current = chained_task_new();
    if (!current)
        return ENOMEM;
    chained_task *previous = atomic_exchange_explicit(&seq->m_latest, current, memory_order_acq_rel);
    int err = queued_task_create(task, current, maker, ctx, executor);
    if (err)
        return err; /* the chain is wedged behind `current` */
    start_if_its_turn(previous, task);
    return 0;
}

#endif
