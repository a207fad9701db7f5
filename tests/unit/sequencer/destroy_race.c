/*
 * task_sequencer unit tests: Destroy against the last task's completion on another thread.
 * Whichever comes second frees the node, exactly once.
 *
 * Part of the sequencer's suite (tests/unit/test_sequencer.c runs it).
 */
#include "sequencer_cases.h"

/* ---- destroy against the last task's completion on another thread -----------------
 * The only task's body waits on a trigger that a second thread fires, so it
 * completes there, and this thread destroys the sequencer: whichever of
 * complete() and the destroy's abandon() is second frees the node. Odd
 * iterations destroy first, even ones second; the two threads order their
 * steps with relaxed flags only, so nothing but the sequencer's own
 * exchanges orders the free after the other side's exchange. Under
 * ThreadSanitizer a missing acquire (destroy second) or release (destroy
 * first) in abandon() is then reported as a race on the node.
 *
 * From step 09 (LOCKSTEP_SEQUENCER_NODE_IN_FRAME) the node is the task's
 * frame, which the owner of the returned task holds too: an owner that
 * reads the result after the destroy would be the last holder every time,
 * and the destroy would never free. So the owner releases the task right
 * after the queue call, and the case checks that the maker ran instead of
 * reading the result: the destroy and the lambda's end are left to race to
 * be last, and each must be last in some iterations.
 *
 * 20,000 iterations, or fewer once RACE_SECONDS are spent and the destroy
 * has freed the node in some iterations and not in others (timing.h); on
 * one CPU once they are spent: there each hand-over waits for the
 * scheduler, a few milliseconds beside busy programs. */
#define RACE_SECONDS 2.0

typedef struct relaxed_firer {
    lockstep_trigger trig;
    atomic_uint armed; /* release/acquire: iteration i's trigger is armed; RACE_STOP: end */
    atomic_uint fire;  /* relaxed: fire iteration i now */
    atomic_uint fired; /* release: iteration i has fired */
    unsigned iterations;
} relaxed_firer;

static void *relaxed_firer_main(void *arg)
{
    relaxed_firer *f = arg;
    for (unsigned i = 1; i <= f->iterations; ++i) {
        unsigned armed;
        for (unsigned spins = 1; (armed = atomic_load_explicit(&f->armed, memory_order_acquire)) != i; ++spins) {
            if (armed == RACE_STOP) /* the test's loop ended early: its budget */
                return NULL;
            race_backoff(spins);
        }
        race_wait_relaxed(&f->fire, i);
        lockstep_trigger_fire(&f->trig);
        atomic_store_explicit(&f->fired, i, memory_order_release);
    }
    return NULL;
}

START_TEST(destroy_races_completion)
{
    relaxed_firer f;
    lockstep_trigger_init(&f.trig);
    atomic_init(&f.armed, 0);
    atomic_init(&f.fire, 0);
    atomic_init(&f.fired, 0);
    f.iterations = (unsigned)(lockstep_iterations(100000) / 5);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, relaxed_firer_main, &f), 0);
    seq_log log;
    seq_log_init(&log, NULL, 0);
    unsigned destroy_freed = 0, ran = 0;
    race_budget budget = race_budget_start(RACE_SECONDS);
    for (unsigned i = 1; i <= f.iterations; ++i) {
        seq_op op;
        seq_op_init(&op, &log, 0, task_value((intptr_t)i));
        op.trig = &f.trig;
        task_sequencer seq;
        task_sequencer_init(&seq);
        simple_task t = {0};
        int err = task_sequencer_queue(&seq, seq_op_maker, &op, NULL, &t); /* arms the trigger */
#ifdef LOCKSTEP_SEQUENCER_NODE_IN_FRAME
        if (err == 0)
            simple_task_release(&t); /* the owner lets go first: see above */
#endif
        race_publish(&f.armed, i);
        bool destroy_first = i % 2;
        if (!destroy_first) {
            atomic_store_explicit(&f.fire, i, memory_order_relaxed);
            race_wait_relaxed(&f.fired, i);
        }
        uint64_t frees = lockstep_alloc_thread().frees;
        task_sequencer_destroy(&seq);
        destroy_freed += lockstep_alloc_thread().frees != frees; /* destroy came second */
        if (destroy_first)
            atomic_store_explicit(&f.fire, i, memory_order_relaxed);
        race_wait_for(&f.fired, i);
        lockstep_assert_in_loop(err == 0, "iteration %u: task_sequencer_queue returned %d", i, err);
#ifdef LOCKSTEP_SEQUENCER_NODE_IN_FRAME
        lockstep_assert_in_loop(op.made == 1, "iteration %u: the maker ran %d times, expected once", i, op.made);
#else
        intptr_t value = take_result(&t, "destroy against completion").value;
        lockstep_assert_in_loop(value == (intptr_t)i, "iteration %u: the task completed with %ld, expected %u", i,
                                (long)value, i);
#endif
        ran = i;
        if (race_may_stop(&budget, destroy_freed > 0 && destroy_freed < ran))
            break;
    }
    race_publish(&f.armed, RACE_STOP);
    pthread_join(th, NULL);
    printf("destroy came second (and freed the node) %u of %u times\n", destroy_freed, ran);
#ifdef LOCKSTEP_SEQUENCER_NODE_IN_FRAME
    lockstep_check_race_coverage("destroy vs the last task's completion", "destroy came second (freed the frame)",
                                 destroy_freed, "completion came second", ran - destroy_freed, ran,
                                 "steps/09-lean-sequencer/README.md, \"Memory orders\"");
#endif
}
END_TEST

/* This file's cases (sequencer_cases.h). */
const lockstep_case sequencer_destroy_race_cases[] = {
    {&destroy_races_completion, 6, SEQUENCER_WHY, 0,
     "destroy against the last task completing on another thread: whichever is second frees the node, once",
     "steps/06-sequencer/README.md, \"Memory orders\""},
    {0},
};
