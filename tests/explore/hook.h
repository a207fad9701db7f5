/*
 * hook.h: force-included (-include) into the explorer's second build of a
 * step's sources, and into nothing else. The step sources contain nothing
 * for the explorer; this header turns each of their atomic operations and
 * mutex/condition calls into
 *
 *     a scheduling point (explore_point: wait for this thread's turn),
 *     the operation, under the C11 model (explore_atomic_*: history.c),
 *     a trace line (explore_log_op: file:line, operation, values, order).
 *
 * #obj and #order are stringified so that the trace can say `m_waiting` and
 * `acq_rel`. The macros are GNU statement expressions, marked __extension__
 * so that -Wpedantic accepts them; __typeof__((void)0, *p) is the type of *p
 * without _Atomic (the trick gcc's own <stdatomic.h> uses).
 *
 * The operation itself is the memory model's (history.c): a load may read
 * an older store than the newest, an acquire that reads a release joins its
 * clock. Loads and stores of plain memory are not scheduling points (the
 * explorer explores the interleavings of the synchronizing operations, as
 * CHESS does); they reach the model through the compiler's
 * ThreadSanitizer instrumentation instead (race.c), which checks each
 * against the others for data races.
 */
#ifndef LOCKSTEP_EXPLORE_HOOK_H
#define LOCKSTEP_EXPLORE_HOOK_H

/* The real headers first: their include guards keep the step's own
 * #includes from undoing the redefinitions below. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "lockstep/alloc.h"
#include "lockstep/coro.h"

#include "explore.h"

#define EXPLORE_VALUE_TYPE(p) __typeof__((void)0, *(p))
/* The steps' atomics are pointers, integers and bools, whose _Atomic forms
 * have the plain type's size and layout: the model reads and writes them as
 * size bytes, and values travel as uintptr_t. */

/* Initialization happens before the object is shared: not a scheduling
 * point, but the start of the object's history (a new object may sit where
 * an old one was). */
#undef atomic_init
#define atomic_init(obj, value)                                                                                 \
    __extension__({                                                                                             \
        __auto_type explore_o_ = (obj);                                                                         \
        EXPLORE_VALUE_TYPE(explore_o_) explore_d_ = (value);                                                    \
        explore_atomic_init(explore_o_, sizeof *explore_o_, (uintptr_t)explore_d_, __FILE__, __LINE__);         \
        (void)0;                                                                                                \
    })

#undef atomic_load_explicit
#define atomic_load_explicit(obj, order)                                                                        \
    __extension__({                                                                                             \
        __auto_type explore_o_ = (obj);                                                                         \
        explore_point(explore_o_, sizeof *explore_o_, __FILE__, __LINE__);                                      \
        EXPLORE_VALUE_TYPE(explore_o_) explore_v_ =                                                             \
            (EXPLORE_VALUE_TYPE(explore_o_))explore_atomic_load(explore_o_, sizeof *explore_o_, (order), #obj);  \
        explore_log_op(EXPLORE_LOAD, "load", #obj, #order, explore_o_, 0, 0, (uintptr_t)explore_v_, true);      \
        explore_v_;                                                                                             \
    })

#undef atomic_store_explicit
#define atomic_store_explicit(obj, value, order)                                                                \
    __extension__({                                                                                             \
        __auto_type explore_o_ = (obj);                                                                         \
        EXPLORE_VALUE_TYPE(explore_o_) explore_d_ = (value);                                                    \
        explore_point(explore_o_, sizeof *explore_o_, __FILE__, __LINE__);                                      \
        explore_atomic_store(explore_o_, sizeof *explore_o_, (uintptr_t)explore_d_, (order), #obj);             \
        explore_log_op(EXPLORE_STORE, "store", #obj, #order, explore_o_, (uintptr_t)explore_d_, 0, 0, true);    \
        (void)0;                                                                                                \
    })

#undef atomic_exchange_explicit
#define atomic_exchange_explicit(obj, value, order)                                                             \
    __extension__({                                                                                             \
        __auto_type explore_o_ = (obj);                                                                         \
        EXPLORE_VALUE_TYPE(explore_o_) explore_d_ = (value);                                                    \
        explore_point(explore_o_, sizeof *explore_o_, __FILE__, __LINE__);                                      \
        EXPLORE_VALUE_TYPE(explore_o_) explore_r_ = (EXPLORE_VALUE_TYPE(explore_o_))explore_atomic_rmw(         \
            explore_o_, sizeof *explore_o_, EXPLORE_RMW_XCHG, (uintptr_t)explore_d_, (order), #obj);            \
        explore_log_op(EXPLORE_EXCHANGE, "exchange", #obj, #order, explore_o_, (uintptr_t)explore_d_, 0,        \
                       (uintptr_t)explore_r_, true);                                                            \
        explore_r_;                                                                                             \
    })

/* A weak compare-exchange never fails spuriously here: the explorer does not
 * model spurious failures (a retry loop would only add schedules). The
 * trace shows the success order, or the failure order when it failed. */
#define EXPLORE_CAS(obj, expected, value, success, failure)                                                     \
    __extension__({                                                                                             \
        __auto_type explore_o_ = (obj);                                                                         \
        __auto_type explore_e_ = (expected);                                                                    \
        EXPLORE_VALUE_TYPE(explore_o_) explore_d_ = (value);                                                    \
        explore_point(explore_o_, sizeof *explore_o_, __FILE__, __LINE__);                                      \
        uintptr_t explore_want_ = (uintptr_t)*explore_e_;                                                       \
        _Bool explore_ok_ = explore_atomic_cas(explore_o_, sizeof *explore_o_, explore_e_,                      \
                                               (uintptr_t)explore_d_, (success), (failure), #obj);              \
        explore_log_op(EXPLORE_CAS, "compare_exchange", #obj, explore_ok_ ? #success : #failure, explore_o_,    \
                       (uintptr_t)explore_d_, explore_want_, (uintptr_t)*explore_e_, explore_ok_);              \
        explore_ok_;                                                                                            \
    })
#undef atomic_compare_exchange_strong_explicit
#define atomic_compare_exchange_strong_explicit(obj, expected, value, success, failure)                         \
    EXPLORE_CAS(obj, expected, value, success, failure)
#undef atomic_compare_exchange_weak_explicit
#define atomic_compare_exchange_weak_explicit(obj, expected, value, success, failure)                           \
    EXPLORE_CAS(obj, expected, value, success, failure)

#define EXPLORE_FETCH(op, name, obj, arg, order)                                                                \
    __extension__({                                                                                             \
        __auto_type explore_o_ = (obj);                                                                         \
        EXPLORE_VALUE_TYPE(explore_o_) explore_a_ = (arg);                                                      \
        explore_point(explore_o_, sizeof *explore_o_, __FILE__, __LINE__);                                      \
        EXPLORE_VALUE_TYPE(explore_o_) explore_r_ = (EXPLORE_VALUE_TYPE(explore_o_))explore_atomic_rmw(         \
            explore_o_, sizeof *explore_o_, op, (uintptr_t)explore_a_, (order), #obj);                          \
        explore_log_op(EXPLORE_FETCH, name, #obj, #order, explore_o_, (uintptr_t)explore_a_, 0,                 \
                       (uintptr_t)explore_r_, true);                                                            \
        explore_r_;                                                                                             \
    })
#undef atomic_fetch_add_explicit
#define atomic_fetch_add_explicit(obj, arg, order) EXPLORE_FETCH(EXPLORE_RMW_ADD, "fetch_add", obj, arg, order)
#undef atomic_fetch_sub_explicit
#define atomic_fetch_sub_explicit(obj, arg, order) EXPLORE_FETCH(EXPLORE_RMW_SUB, "fetch_sub", obj, arg, order)
#undef atomic_fetch_or_explicit
#define atomic_fetch_or_explicit(obj, arg, order) EXPLORE_FETCH(EXPLORE_RMW_OR, "fetch_or", obj, arg, order)
#undef atomic_fetch_and_explicit
#define atomic_fetch_and_explicit(obj, arg, order) EXPLORE_FETCH(EXPLORE_RMW_AND, "fetch_and", obj, arg, order)
#undef atomic_fetch_xor_explicit
#define atomic_fetch_xor_explicit(obj, arg, order) EXPLORE_FETCH(EXPLORE_RMW_XOR, "fetch_xor", obj, arg, order)

/* Fences are not in the model (C11 7.17.4 would need their own rules): a
 * step that uses one is told so, instead of being judged without them. */
#undef atomic_thread_fence
#define atomic_thread_fence(order) explore_fence(#order, __FILE__, __LINE__)

/* The implicit (seq_cst) forms, for completeness: the steps use the explicit ones. */
#undef atomic_load
#define atomic_load(obj) atomic_load_explicit(obj, memory_order_seq_cst)
#undef atomic_store
#define atomic_store(obj, value) atomic_store_explicit(obj, value, memory_order_seq_cst)
#undef atomic_exchange
#define atomic_exchange(obj, value) atomic_exchange_explicit(obj, value, memory_order_seq_cst)

/* Mutexes and condition variables are modelled cooperatively (sched.c): a
 * thread whose lock would block is simply not runnable until the unlock. */
#define pthread_mutex_lock(m) explore_mutex_lock((m), #m, __FILE__, __LINE__)
#define pthread_mutex_unlock(m) explore_mutex_unlock((m), #m, __FILE__, __LINE__)
#define pthread_cond_wait(c, m) explore_cond_wait((c), (m), #c, __FILE__, __LINE__)
#define pthread_cond_signal(c) explore_cond_signal((c), #c, __FILE__, __LINE__)
#define pthread_cond_broadcast(c) explore_cond_broadcast((c), #c, __FILE__, __LINE__)

/* A coroutine resumed from the step's code runs a trampoline inside the
 * caller's: the explorer counts how deep they nest (sched.c), so that a
 * scenario can check that the C stack does not grow with a chain of
 * completions (errata 5: resume the next one inline instead of returning it). */
#define lockstep_coro_resume(h) explore_coro_resume(h)

/* Allocations carry their file:line into the trace and the leak report. */
#define lockstep_alloc(size) explore_alloc_at((size), __FILE__, __LINE__)
#define lockstep_free(p) explore_free_at((p), __FILE__, __LINE__)

#endif /* LOCKSTEP_EXPLORE_HOOK_H */
