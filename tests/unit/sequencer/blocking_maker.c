/*
 * task_sequencer unit tests: A maker must not block on a task it queued.
 * The assert that says so instead of a hang (assert builds only), and what
 * it suggests instead: hand the queued task out as the body.
 *
 * Part of the sequencer's suite (tests/unit/test_sequencer.c runs it).
 */
#include "sequencer_cases.h"

static task_sequencer g_seq;

/* ---- a maker must not block on what it queued ------------------------------
 * A maker runs inside its thread's drain: a task it queues on an idle
 * sequencer joins the thread's run queue and starts only when the maker has
 * returned. Waiting for that task from the maker (simple_task_wait) would
 * hang for ever; the wait asserts instead, naming what to do. The case runs
 * in a child process and checks that the child died of SIGABRT with that
 * message. An alarm ends a child whose wait hangs (a copy without the
 * assert), so the case fails instead of hanging: the deadlock, not a
 * timing. */
#define HANG_SECONDS 30 /* the wait either asserts at once or never returns */
#define WAIT_ASSERT_TEXT "simple_task_wait from a task_sequencer maker (this thread drains sequenced tasks) would hang"

typedef struct waiting_maker_ctx {
    task_sequencer other; /* idle: what the maker queues joins the run queue */
    seq_op inner;
    simple_task inner_task;
} waiting_maker_ctx;

/* Only the assert build runs it (NDEBUG: the case below skips, the wait would
 * hang), and an unused static function is an error under -Werror. */
#ifndef NDEBUG
static int waiting_maker(void *ctx, simple_task *task)
{
    waiting_maker_ctx *w = ctx;
    if (task_sequencer_queue(&w->other, seq_op_maker, &w->inner, NULL, &w->inner_task) != 0)
        return ENOMEM;
    (void)task;
    simple_task_wait(&w->inner_task); /* the misuse: asserts (or hangs) */
    return EINVAL;                    /* not reached: the child exits 0 and the case fails */
}
#endif

START_TEST(maker_waiting_for_a_task_it_queued_asserts)
{
#ifdef NDEBUG
    lockstep_skip_after_checks("built with NDEBUG: assertions are off, so the wait would hang");
#else
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ne(pid, -1);
    if (pid == 0) { /* the child: the misuse, with its stderr into the pipe */
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        signal(SIGALRM, SIG_DFL); /* Check's own handler would kill the whole process group */
        alarm(HANG_SECONDS);      /* a hang is the bug this case is about; the parent reports it */
        int order[1];
        seq_log log;
        seq_log_init(&log, order, 1);
        waiting_maker_ctx w;
        seq_op_init(&w.inner, &log, 1, task_value(1));
        task_sequencer_init(&w.other);
        task_sequencer seq;
        task_sequencer_init(&seq);
        simple_task t = {0};
        task_sequencer_queue(&seq, waiting_maker, &w, NULL, &t); /* idle: the maker runs now, in a drain */
        _exit(0);                                                  /* not reached if the wait asserts */
    }
    close(fds[1]);
    char err[2048];
    size_t n = 0;
    for (ssize_t got; n < sizeof err - 1 && (got = read(fds[0], err + n, sizeof err - 1 - n)) != 0;)
        if (got > 0)
            n += (size_t)got;
        else if (errno != EINTR)
            break;
    err[n] = '\0';
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) == -1)
        ck_assert_int_eq(errno, EINTR);
    ck_assert_msg(!(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM),
                  "a maker waited for a task it had queued on an idle sequencer, and the wait hung for %d s: the "
                  "task sits in the maker's own run queue (see " README ", 'Bounded stack')", HANG_SECONDS);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
                  "a maker's wait for a task it queued should assert (SIGABRT); the child ended with status 0x%x "
                  "(see " README ", 'Bounded stack')", (unsigned)status);
    ck_assert_msg(strstr(err, WAIT_ASSERT_TEXT) != NULL,
                  "the assert should say what is wrong and what to do (\"" WAIT_ASSERT_TEXT " ...\"); stderr "
                  "was: %s", err);
    printf("the child aborted with: %s", err);
#endif
}
END_TEST

/* What the assert suggests instead: the maker hands the task it queued out
 * as its body, and the wrapper awaits it. */
static int handing_maker(void *ctx, simple_task *task)
{
    waiting_maker_ctx *w = ctx;
    return task_sequencer_queue(&w->other, seq_op_maker, &w->inner, NULL, task);
}

START_TEST(maker_hands_out_a_task_it_queued)
{
    int order[1];
    seq_log log;
    seq_log_init(&log, order, 1);
    waiting_maker_ctx w;
    seq_op_init(&w.inner, &log, 7, task_value(7));
    seq_init(&w.other);
    seq_init(&g_seq);
    simple_task t = {0};
    ck_assert_int_eq(task_sequencer_queue(&g_seq, handing_maker, &w, NULL, &t), 0);
    task_result r = take_result(&t, "a task whose body was queued by its maker on another sequencer");
    ck_assert_msg(r.error == 0 && r.value == 7, "it completed with {%d, %ld}, expected {0, 7}", r.error,
                  (long)r.value);
    ck_assert_int_eq(w.inner.made, 1);
    task_sequencer_destroy(&g_seq);
    task_sequencer_destroy(&w.other);
}
END_TEST

/* This file's cases (sequencer_cases.h). */
const lockstep_case sequencer_blocking_maker_cases[] = {
    {&maker_waiting_for_a_task_it_queued_asserts, 6, SEQUENCER_WHY, 0,
     "a maker that blocks (simple_task_wait) on a task it queued on an idle sequencer gets an assert saying what to do, not a hang",
     "steps/06-sequencer/README.md, \"Bounded stack\""},
    {&maker_hands_out_a_task_it_queued, 6, SEQUENCER_WHY, 0,
     "a maker may hand out a task it queued on another sequencer as its body: the wrapper completes with its result",
     "steps/06-sequencer/README.md, \"Bounded stack\""},
    {0},
};
