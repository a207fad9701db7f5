/*
 * Which steps commute: the dependence relation of the search's reduction
 * (path.c).
 *
 * A step is what a thread does when the scheduler names it: the operation
 * it waits at (an atomic operation, a fence, a mutex or condition call),
 * and the plain code after it, up to its next scheduling point. Two steps
 * of different threads are independent when running them in either order
 * leaves the same state and neither enables or disables the other: then
 * the two orders are one execution (execution.c), and the search need try
 * only one of them (Godefroid, "Partial-Order Methods for the Verification
 * of Concurrent Systems", LNCS 1032, 1996; Flanagan and Godefroid, POPL
 * 2005). Here, conservatively, two steps are dependent when:
 *
 *   - they are atomic operations on the same location and one of them may
 *     write (a compare-exchange or read-modify-write counts as a write even
 *     when it will fail): the order decides what the read may read, or
 *     where each store goes in modification order (refined below);
 *   - they are mutex or condition-variable calls on a common object
 *     (mutex.c says which each call is on): the same mutex, whose holder
 *     decides who can lock it and whose unlock synchronizes with the next
 *     lock (clock.c), so that the order of its critical sections is part
 *     of the execution; or the same condition variable, whose waiters
 *     decide whom a signal wakes (and a signal enables the waiter's
 *     relock). A condition wait is on both its mutex and its condition:
 *     it unlocks the mutex and joins the waiters, then relocks. Calls on
 *     different objects commute: each reads and changes only its own
 *     objects, and none enables or disables a call on another (a lock
 *     waits only for its own mutex). The plain code after a lock is part
 *     of the step, as after an atomic operation: two steps whose plain
 *     accesses conflict are ordered by happens-before, through steps that
 *     are dependent, or are a data race (below);
 *   - either touches the scenario's own bookkeeping (its peeks, between
 *     explore_unchecked(true) and (false), which the race check leaves
 *     out, so happens-before does not order them) and one of the two
 *     writes plain memory the other reads or writes: a step's *footprint*
 *     (the bytes of every plain access and free it makes) is known once
 *     it has run, and path.c remembers it of the steps it has explored.
 *     Two steps that touch no common byte commute whatever the
 *     peek reads: it reads the same values in either order. Between two
 *     steps neither of which peeks, plain accesses need no such check:
 *     two that conflict are ordered by happens-before, through steps that
 *     are dependent, or are a data race (datarace.c). A peek sees only
 *     plain memory this way: one that asked the explorer about the
 *     schedule itself would be unknown here;
 *   - either is a wait on a scenario's predicate (explore_wait_until):
 *     what the predicate reads is the scenario's, unknown here.
 *
 * A thread's first step runs only plain code up to its first operation:
 * it commutes with everything but bookkeeping.
 *
 * A release or acquire changes only its own thread's clock, and a load
 * marks a store seen by its own thread only, so operations on different
 * locations commute. Plain accesses are not scheduling points: two plain
 * accesses that happens-before does not order are a data race, found in
 * whichever order they run (datarace.c); ordered ones are ordered through
 * steps that are dependent. An allocation's address is not part of an
 * execution (execution.c).
 *
 * On one location, under RC11 (free_mo), more commutes, because the model
 * lets a store take any place in modification order after the stores its
 * thread has seen (location.c): T0's store then T1's store can make every
 * modification order that T1's then T0's can, and a load after a store
 * may still read what it would have read before it. So a step commutes
 * with an asleep thread's next step on the same location but for one
 * case: it stores, and the asleep step reads. Even then, what the asleep
 * step could read before was explored already; only the new store is new.
 * So the asleep thread is *limited* rather than woken (path.c): it may go
 * on, but its read must read a store made since it fell asleep. This is
 * the reads-from view of an execution (GenMC's, Kokologiannakis et al.,
 * PLDI 2019): the order of two steps on one location matters only when
 * one may read what the other wrote. For the search's races (path.c) the
 * pair stays dependent, so that a load that ran before a store is also
 * tried after it. seq_cst does not change this, on one location or
 * across locations: RC11's psc is a property of the graph, not of the
 * order it was built in; psc.c checks each choice against every cycle
 * through the new event, and the default choice (the newest store, the
 * last place) closes none, so two seq_cst steps on different locations
 * make the same graphs, and pass or fail the same, in either order. That
 * holds under --model c11 too: the two models differ only in their
 * release sequences (location.c), and under both, seq_cst is psc's (C11's
 * total order S, N1570 7.17.3p6, is what RC11's psc repairs; the explorer
 * never takes S to be the order steps ran in), so a seq_cst step commutes
 * with a step on another location under either. Under --model
 * c11 a store may not split another thread's release sequence (N1570
 * 5.1.2.4p10: a store of another thread between two of its stores ends
 * it), and the model never places a store between two stores of such
 * a sequence (location.c: the acquires that read the later one already
 * synchronized): where a store may go then depends on which stores ran
 * before it, so there, steps on one location are dependent when either
 * writes. This is why --model c11 costs more schedules for the same
 * executions.
 */
#include "model.h"

static bool overlap(const byte_ranges *a, const byte_ranges *b)
{
    if ((a->n == 0 && !a->all) || (b->n == 0 && !b->all))
        return false;
    if (a->all || b->all)
        return true;
    for (int i = 0; i < a->n; ++i)
        for (int k = 0; k < b->n; ++k)
            if (a->r[i].lo < b->r[k].hi && b->r[k].lo < a->r[i].hi)
                return true;
    return false;
}

/* Whether two mutex or condition calls are on a common object: the same
 * mutex, or the same condition variable. */
static bool sync_meet(const step *a, const step *b)
{
    return (a->obj && a->obj == b->obj) || (a->cond && a->cond == b->cond);
}

/* Whether one step writes a byte of plain memory the other reads or
 * writes (NULL: a footprint not known, which may). */
static bool conflict(const footprint *a, const footprint *b)
{
    if (!a || !b)
        return true;
    return overlap(&a->writes, &b->reads) || overlap(&a->writes, &b->writes) || overlap(&b->writes, &a->reads);
}

enum step_effect step_effect(const step *ran, const step *asleep, bool free_mo)
{
    if (ran->kind == STEP_ANY || asleep->kind == STEP_ANY)
        return STEP_WAKE;
    if ((ran->scenario || asleep->scenario) && conflict(ran->foot, asleep->foot))
        return STEP_WAKE;
    if (ran->kind == STEP_LOCAL || asleep->kind == STEP_LOCAL)
        return STEP_KEEP;
    if (ran->kind == STEP_SYNC || asleep->kind == STEP_SYNC)
        return ran->kind == asleep->kind && sync_meet(ran, asleep) ? STEP_WAKE : STEP_KEEP;
    if (ran->kind != STEP_ATOMIC || asleep->kind != STEP_ATOMIC || ran->obj != asleep->obj)
        return STEP_KEEP;
    if (!free_mo)
        return ran->writes || asleep->writes ? STEP_WAKE : STEP_KEEP;
    return ran->writes && asleep->reads ? STEP_LIMIT : STEP_KEEP;
}
