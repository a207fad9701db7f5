/*
 * task_sequencer, step 09 (step 06's sequencer, "Serializing asynchronous
 * operations in C++/WinRT", 2022-09-15, with the fixes of 2025-03-28 and
 * 2025-12-31, on step 08's lazy tasks): the chain's node lives in the
 * queued task's frame.
 *
 * Step 08's frame already carried two coroutines: the article's lambda
 * (`hot`), which the chain starts in its turn, and the returned task's own
 * coroutine, which joins an await to the lambda's end through step 03's
 * word. The chain's node was a block of its own, because it outlives the
 * task: a late queue call still links behind it. Here the frame outlives
 * its task instead, and one word, m_state, does the work of the node's
 * `next` and of m_waiting. Three parties hold the frame, and each one
 * reports once, with one fetch_or:
 *
 *     the lambda      COMPLETED   its result is in m_holder
 *     the owner       AWAITED     its coroutine is in m_continuation (then it waits)
 *                     RELEASED    the returned task is gone
 *     the chain       a frame     the task queued behind this one (the node's `next`)
 *                     ABANDONED   the sequencer let go of its newest frame
 *
 * What a fetch_or takes out says who has been there already. The lambda
 * starts the frame it takes out, resumes the awaiter if AWAITED (and not
 * RELEASED: erratum 1's abandoned awaiter), and a queue call that finds
 * COMPLETED starts its own task at once. Whoever completes the set
 * COMPLETED, RELEASED and linked (a frame or ABANDONED) frees the frame: no
 * reference count, as in step 03.
 *
 * A successor's frame goes into the word itself, not into a field beside
 * it: the lambda reads it out of the value its own fetch_or returns, so it
 * never touches the frame after that fetch_or unless it is the last holder
 * or the owner is suspended on it. Frames are at least 8-byte aligned
 * (malloc's alignment), which leaves the three low bits for the flags.
 *
 * Erratum 6 (the 2022 order linked the node before the task existed) has
 * no room left: the node is the frame, so there is nothing to link before
 * the one allocation has succeeded, and step 06's LOCKSTEP_ARTICLE_LINK_FIRST
 * build is gone.
 */
#include "lockstep/sequencer.h"

#include "lockstep/alloc.h"

#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- m_state: the frame's one shared word ----------------------------------- */

enum {
    COMPLETED = 1, /* the lambda has completed */
    AWAITED = 2,   /* the owner's coroutine waits in m_continuation */
    RELEASED = 4,  /* the owner released the returned task */
    FLAGS = COMPLETED | AWAITED | RELEASED,
};

/* The rest of the word: 0 (nobody behind yet), the frame queued behind, or ABANDONED. */
#define LINK(state) ((state) & ~(uintptr_t)FLAGS)
#define ABANDONED (~(uintptr_t)FLAGS) /* no frame lives at the top of the address space */

/* m_state keeps three flags in the low bits of a frame's address (see the
 * top of the file), so every frame must be 8-byte aligned. Frames come from
 * lockstep_alloc(), aligned for any type as malloc is: this checks that
 * "any type" means at least 8 bytes on this platform, and continue_with()'s
 * assert checks each frame it links. */
_Static_assert(_Alignof(max_align_t) >= 8, "task_sequencer: frames must be 8-byte aligned (m_state's 3 flag bits)");

/* The three holders have all let go: the frame can be freed. */
static bool all_done(uintptr_t state)
{
    return (state & COMPLETED) && (state & RELEASED) && LINK(state) != 0;
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
    _Atomic(uintptr_t) m_state;   /* the node's `next` and the join, in one word: see above */
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

/* The end of a queued task has two coroutines to run: the successor and
 * the awaiter that lambda_complete() took out of m_state. C's
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

/* ---- the three holders' reports ----------------------------------------------
 *
 * Every report is a fetch_or with acq_rel, for the same two reasons: release,
 * so that what this holder did with the frame (wrote m_holder, the
 * successor's frame, m_continuation, or only read the frame) happens before
 * whoever acts on the report, down to the free; acquire, because this
 * holder may act on the others' reports: read m_holder or m_continuation,
 * start the frame it took out, or free the frame. */

/* The frame whose state word took out `state` is freed by this holder, the last. */
static void free_if_last(queued_task *f, uintptr_t state)
{
    if (all_done(state))
        lockstep_free(f);
}

/* The chain links `next` behind `f` (C++: continue_with). Returns `next`'s
 * lambda if it must run now (f's task has completed), else NULL: f's lambda
 * starts it when it completes. */
static lockstep_coro *continue_with(queued_task *f, queued_task *next)
{
    assert(((uintptr_t)next & FLAGS) == 0 && "task_sequencer: a frame is not 8-byte aligned");
    uintptr_t state = atomic_fetch_or_explicit(&f->m_state, (uintptr_t)next, memory_order_acq_rel);
    assert(LINK(state) == 0 && "continue_with: a task is already queued behind this one");
    if (!(state & COMPLETED))
        return NULL;
    free_if_last(f, state | (uintptr_t)next);
    return &next->hot;
}

/* The sequencer lets go of its newest frame (C++: m_latest's shared_ptr is
 * destroyed). */
static void abandon(queued_task *f)
{
    uintptr_t state = atomic_fetch_or_explicit(&f->m_state, ABANDONED, memory_order_acq_rel);
    assert(LINK(state) == 0 && "task_sequencer_destroy: a task_sequencer_queue call is still running");
    free_if_last(f, state | ABANDONED);
}

/* The lambda's end (C++: ~completer's complete(), then final_suspend). f's
 * result is in m_holder. Takes out, in one report, the successor to start
 * and whether an awaiter waits. */
static void lambda_complete(queued_task *f, lockstep_coro **successor, lockstep_coro **awaiter)
{
    uintptr_t state = atomic_fetch_or_explicit(&f->m_state, COMPLETED, memory_order_acq_rel);
    assert(!(state & COMPLETED) && "queued task: its lambda completed twice");
    uintptr_t link = LINK(state);
    *successor = link && link != ABANDONED ? &((queued_task *)link)->hot : NULL;
    /* An awaiter that was released while suspended is gone (erratum 1). */
    *awaiter = (state & AWAITED) && !(state & RELEASED) ? simple_promise_final_suspend(&f->promise) : NULL;
    free_if_last(f, state | COMPLETED);
}

/* The returned task's coroutine: simple_task_await_suspend() stored the
 * awaiter in m_continuation and hands over to it. */
static lockstep_coro *queued_task_await(lockstep_coro *self)
{
    queued_task *f = (queued_task *)self;
    self->resume_point = 1; /* suspended on the lambda */
    uintptr_t state = atomic_fetch_or_explicit(&f->m_state, AWAITED, memory_order_acq_rel);
    assert(!(state & (AWAITED | RELEASED)) && "queued task: awaited twice or after its release");
    if (!(state & COMPLETED))
        return NULL; /* the lambda's end resumes the awaiter */
    return simple_promise_final_suspend(&f->promise); /* the awaiter, at once */
}

/* simple_task_release() of the returned task: awaited to the end, never
 * awaited, or its awaiter destroyed while suspended, the owner reports once. */
static void queued_task_release(lockstep_coro *self)
{
    queued_task *f = (queued_task *)self;
    uintptr_t state = atomic_fetch_or_explicit(&f->m_state, RELEASED, memory_order_acq_rel);
    assert(!(state & RELEASED) && "simple_task_release: the task was already released");
    free_if_last(f, state | RELEASED);
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
    lockstep_coro *successor, *awaiter;
    lambda_complete(f, &successor, &awaiter); /* f may be freed now */
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
    queued_task *latest = atomic_load_explicit(&seq->m_latest, memory_order_relaxed);
    if (latest)
        abandon(latest);
}

/* Creates the queued task, suspended until its turn, its node included.
 * Everything it needs is copied into its frame now: after the
 * queue call returns it never touches the caller's stack or the sequencer. */
static int queued_task_create(simple_task *task, task_sequencer_maker maker, void *ctx, lockstep_executor *executor)
{
    simple_promise *p;
    int err = simple_promise_create(&p, sizeof(queued_task), queued_task_await);
    if (err)
        return err;
    p->coro.destroy = queued_task_release;
    queued_task *f = (queued_task *)p;
    lockstep_coro_init(&f->hot, queued_task_resume, queued_task_hot_destroy);
    atomic_init(&f->m_state, 0); /* running, not awaited, held, nobody behind */
    f->maker = maker;
    f->ctx = ctx;
    f->executor = executor;
    f->body.m_promise = NULL;
    f->run_next = NULL;
    simple_task_start(task, p); /* hands it out; the lambda waits for its turn */
    return 0;
}

int task_sequencer_queue(task_sequencer *seq, task_sequencer_maker maker, void *ctx, lockstep_executor *executor,
                         simple_task *task)
{
    assert(seq && maker && task && "task_sequencer_queue: NULL argument");
    /* (1) the frame, node included: the one allocation, and nothing is linked yet */
    int err = queued_task_create(task, maker, ctx, executor);
    if (err)
        return err;
    queued_task *current = (queued_task *)task->m_promise;
    /* (2) only now link it; nothing after this can fail. acq_rel:
     * release publishes the new frame's initial state to the queue call that
     * takes it out next; acquire lets us see the initial state of the frame
     * we take out, published by the queue call that put it there. */
    queued_task *previous = atomic_exchange_explicit(&seq->m_latest, current, memory_order_acq_rel);
    /* (3) continue_with; the task was handed out in (1) */
    lockstep_coro *now = previous ? continue_with(previous, current) : &current->hot; /* NULL previous: idle */
    if (now)
        run_in_turn(queued_task_of(now));
    return 0;
}
