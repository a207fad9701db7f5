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
 *     where each store goes in modification order;
 *   - either is seq_cst (an atomic operation or a fence): RC11's psc is
 *     built from hb, rf and mo over every location, so a seq_cst step is
 *     taken as dependent with every atomic operation or fence;
 *   - both are mutex or condition-variable calls (any mutex: who holds
 *     which decides who can run);
 *   - either is a thread's first step or a wait on a scenario's predicate
 *     (explore_wait_until): what they touch is the scenario's, unknown here,
 *     and the scenario's own bookkeeping (its clocks, explore_unchecked)
 *     runs in them.
 *
 * A release or acquire changes only its own thread's clock, and a load
 * marks a store seen by its own thread only, so loads of one location
 * commute, and operations on different locations commute. Plain accesses
 * are not scheduling points: two plain accesses that happens-before does
 * not order are a data race, found in whichever order they run
 * (datarace.c); ordered ones are ordered through steps that are dependent.
 * An allocation's address is not part of an execution (execution.c).
 */
#include "model.h"

static bool is_atomic(const step *s) { return s->kind == STEP_ATOMIC || s->kind == STEP_FENCE; }

bool step_dependent(const step *a, const step *b)
{
    if (a->kind == STEP_ANY || b->kind == STEP_ANY)
        return true;
    if (a->kind == STEP_SYNC || b->kind == STEP_SYNC)
        return a->kind == b->kind;
    if ((a->sc && is_atomic(b)) || (b->sc && is_atomic(a)))
        return true;
    return a->kind == STEP_ATOMIC && b->kind == STEP_ATOMIC && a->obj == b->obj && (a->writes || b->writes);
}
