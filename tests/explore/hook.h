/*
 * hook.h: force-included (-include) into the explorer's second build of a
 * step's sources, and into nothing else. The step sources contain nothing
 * for the explorer; this header turns each of their atomic operations and
 * mutex/condition calls into
 *
 *     a scheduling point (explore_point: wait for this thread's turn),
 *     the real operation (the same __atomic builtin <stdatomic.h> uses),
 *     a trace line (explore_log_op: file:line, operation, values, order).
 *
 * #obj and #order are stringified so that the trace can say `m_waiting` and
 * `acq_rel`. The macros are GNU statement expressions, marked __extension__
 * so that -Wpedantic accepts them; __typeof__((void)0, *p) is the type of *p
 * without _Atomic (the trick gcc's own <stdatomic.h> uses).
 *
 * Loads and stores of plain memory are not scheduling points: the explorer
 * explores the interleavings of the synchronizing operations (CHESS does the
 * same), which is where the steps' races are.
 */
#ifndef LOCKSTEP_EXPLORE_HOOK_H
#define LOCKSTEP_EXPLORE_HOOK_H

/* The real headers first: their include guards keep the step's own
 * #includes from undoing the redefinitions below. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "lockstep/alloc.h"

#include "explore.h"

#define EXPLORE_VALUE_TYPE(p) __typeof__((void)0, *(p))
/* The object seen without _Atomic: clang's __atomic builtins refuse _Atomic
 * operands (gcc's accept both). The steps' atomics are pointers, integers
 * and bools, whose _Atomic forms have the plain type's size and layout. */
#define EXPLORE_PLAIN(p) ((EXPLORE_VALUE_TYPE(p) *)(p))

/* Initialization happens before the object is shared: not a scheduling point. */
#undef atomic_init
#define atomic_init(obj, value)                                                                                 \
    __extension__({                                                                                             \
        __auto_type explore_o_ = (obj);                                                                         \
        EXPLORE_VALUE_TYPE(explore_o_) explore_d_ = (value);                                                    \
        __atomic_store(EXPLORE_PLAIN(explore_o_), &explore_d_, __ATOMIC_RELAXED);                               \
        (void)0;                                                                                                \
    })

#undef atomic_load_explicit
#define atomic_load_explicit(obj, order)                                                                        \
    __extension__({                                                                                             \
        __auto_type explore_o_ = (obj);                                                                         \
        explore_point(explore_o_, sizeof *explore_o_, __FILE__, __LINE__);                                      \
        EXPLORE_VALUE_TYPE(explore_o_) explore_v_;                                                              \
        __atomic_load(EXPLORE_PLAIN(explore_o_), &explore_v_, (order));                                         \
        explore_log_op(EXPLORE_LOAD, "load", #obj, #order, explore_o_, 0, 0, (uintptr_t)explore_v_, true);      \
        explore_v_;                                                                                             \
    })

#undef atomic_store_explicit
#define atomic_store_explicit(obj, value, order)                                                                \
    __extension__({                                                                                             \
        __auto_type explore_o_ = (obj);                                                                         \
        EXPLORE_VALUE_TYPE(explore_o_) explore_d_ = (value);                                                    \
        explore_point(explore_o_, sizeof *explore_o_, __FILE__, __LINE__);                                      \
        __atomic_store(EXPLORE_PLAIN(explore_o_), &explore_d_, (order));                                        \
        explore_log_op(EXPLORE_STORE, "store", #obj, #order, explore_o_, (uintptr_t)explore_d_, 0, 0, true);    \
        (void)0;                                                                                                \
    })

#undef atomic_exchange_explicit
#define atomic_exchange_explicit(obj, value, order)                                                             \
    __extension__({                                                                                             \
        __auto_type explore_o_ = (obj);                                                                         \
        EXPLORE_VALUE_TYPE(explore_o_) explore_d_ = (value), explore_r_;                                        \
        explore_point(explore_o_, sizeof *explore_o_, __FILE__, __LINE__);                                      \
        __atomic_exchange(EXPLORE_PLAIN(explore_o_), &explore_d_, &explore_r_, (order));                        \
        explore_log_op(EXPLORE_EXCHANGE, "exchange", #obj, #order, explore_o_, (uintptr_t)explore_d_, 0,        \
                       (uintptr_t)explore_r_, true);                                                            \
        explore_r_;                                                                                             \
    })

/* A weak compare-exchange never fails spuriously here: the explorer does not
 * model spurious failures (a retry loop would only add schedules). */
#define EXPLORE_CAS(obj, expected, value, success, failure)                                                     \
    __extension__({                                                                                             \
        __auto_type explore_o_ = (obj);                                                                         \
        __auto_type explore_e_ = (expected);                                                                    \
        EXPLORE_VALUE_TYPE(explore_o_) explore_d_ = (value);                                                    \
        explore_point(explore_o_, sizeof *explore_o_, __FILE__, __LINE__);                                      \
        uintptr_t explore_want_ = (uintptr_t)*explore_e_;                                                       \
        _Bool explore_ok_ = __atomic_compare_exchange(EXPLORE_PLAIN(explore_o_), explore_e_, &explore_d_, 0,    \
                                                      (success), (failure));                                    \
        explore_log_op(EXPLORE_CAS, "compare_exchange", #obj, #success, explore_o_, (uintptr_t)explore_d_,      \
                       explore_want_, (uintptr_t)*explore_e_, explore_ok_);                                     \
        explore_ok_;                                                                                            \
    })
#undef atomic_compare_exchange_strong_explicit
#define atomic_compare_exchange_strong_explicit(obj, expected, value, success, failure)                         \
    EXPLORE_CAS(obj, expected, value, success, failure)
#undef atomic_compare_exchange_weak_explicit
#define atomic_compare_exchange_weak_explicit(obj, expected, value, success, failure)                           \
    EXPLORE_CAS(obj, expected, value, success, failure)

#define EXPLORE_FETCH(op, obj, arg, order)                                                                      \
    __extension__({                                                                                             \
        __auto_type explore_o_ = (obj);                                                                         \
        EXPLORE_VALUE_TYPE(explore_o_) explore_a_ = (arg);                                                      \
        explore_point(explore_o_, sizeof *explore_o_, __FILE__, __LINE__);                                      \
        EXPLORE_VALUE_TYPE(explore_o_) explore_r_ = __atomic_fetch_##op(EXPLORE_PLAIN(explore_o_), explore_a_, (order)); \
        explore_log_op(EXPLORE_FETCH, "fetch_" #op, #obj, #order, explore_o_, (uintptr_t)explore_a_, 0,         \
                       (uintptr_t)explore_r_, true);                                                            \
        explore_r_;                                                                                             \
    })
#undef atomic_fetch_add_explicit
#define atomic_fetch_add_explicit(obj, arg, order) EXPLORE_FETCH(add, obj, arg, order)
#undef atomic_fetch_sub_explicit
#define atomic_fetch_sub_explicit(obj, arg, order) EXPLORE_FETCH(sub, obj, arg, order)
#undef atomic_fetch_or_explicit
#define atomic_fetch_or_explicit(obj, arg, order) EXPLORE_FETCH(or, obj, arg, order)
#undef atomic_fetch_and_explicit
#define atomic_fetch_and_explicit(obj, arg, order) EXPLORE_FETCH(and, obj, arg, order)
#undef atomic_fetch_xor_explicit
#define atomic_fetch_xor_explicit(obj, arg, order) EXPLORE_FETCH(xor, obj, arg, order)

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

/* Allocations carry their file:line into the trace and the leak report. */
#define lockstep_alloc(size) explore_alloc_at((size), __FILE__, __LINE__)
#define lockstep_free(p) explore_free_at((p), __FILE__, __LINE__)

#endif /* LOCKSTEP_EXPLORE_HOOK_H */
