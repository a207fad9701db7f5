/*
 * count_hook.h -- force-included (-include) into the tour's counting build
 * of each step's sources and of the benchmark's files, and into nothing
 * else: each atomic operation and mutex call becomes "bump a counter
 * (count.h), then do it".
 * The explorer's tests/explore/hook.h does the same to schedule and model
 * each operation; this one only counts, and leaves the operation as it was.
 *
 * The operation itself is the compiler's builtin, the one its own
 * <stdatomic.h> expands to: gcc's __atomic_* accept _Atomic objects, clang
 * has __c11_atomic_* for them. Each macro is a comma expression: the count,
 * then the operation's value.
 */
#ifndef LOCKSTEP_BENCH_COUNT_HOOK_H
#define LOCKSTEP_BENCH_COUNT_HOOK_H

/* The real headers first: their include guards keep the sources' own
 * #includes from undoing the redefinitions below. */
#include <pthread.h>
#include <stdatomic.h>

#include "count.h"

#if defined(__clang__)
#define COUNT_LOAD(obj, order) __c11_atomic_load(obj, order)
#define COUNT_STORE(obj, value, order) __c11_atomic_store(obj, value, order)
#define COUNT_EXCHANGE(obj, value, order) __c11_atomic_exchange(obj, value, order)
#define COUNT_CAS(obj, expected, value, weak, success, failure)                                                   \
    ((weak) ? __c11_atomic_compare_exchange_weak(obj, expected, value, success, failure)                          \
            : __c11_atomic_compare_exchange_strong(obj, expected, value, success, failure))
#define COUNT_FETCH(op, obj, arg, order) __c11_atomic_fetch_##op(obj, arg, order)
#else
#define COUNT_LOAD(obj, order) __atomic_load_n(obj, order)
#define COUNT_STORE(obj, value, order) __atomic_store_n(obj, value, order)
#define COUNT_EXCHANGE(obj, value, order) __atomic_exchange_n(obj, value, order)
#define COUNT_CAS(obj, expected, value, weak, success, failure)                                                   \
    __atomic_compare_exchange_n(obj, expected, value, weak, success, failure)
#define COUNT_FETCH(op, obj, arg, order) __atomic_fetch_##op(obj, arg, order)
#endif

#undef atomic_load_explicit
#define atomic_load_explicit(obj, order) (lockstep_count(LOCKSTEP_COUNT_LOAD), COUNT_LOAD(obj, order))
#undef atomic_store_explicit
#define atomic_store_explicit(obj, value, order) (lockstep_count(LOCKSTEP_COUNT_STORE), COUNT_STORE(obj, value, order))
#undef atomic_exchange_explicit
#define atomic_exchange_explicit(obj, value, order)                                                               \
    (lockstep_count(LOCKSTEP_COUNT_EXCHANGE), COUNT_EXCHANGE(obj, value, order))
#undef atomic_compare_exchange_strong_explicit
#define atomic_compare_exchange_strong_explicit(obj, expected, value, success, failure)                           \
    (lockstep_count(LOCKSTEP_COUNT_COMPARE_EXCHANGE), COUNT_CAS(obj, expected, value, 0, success, failure))
#undef atomic_compare_exchange_weak_explicit
#define atomic_compare_exchange_weak_explicit(obj, expected, value, success, failure)                             \
    (lockstep_count(LOCKSTEP_COUNT_COMPARE_EXCHANGE), COUNT_CAS(obj, expected, value, 1, success, failure))
#undef atomic_fetch_add_explicit
#define atomic_fetch_add_explicit(obj, arg, order) (lockstep_count(LOCKSTEP_COUNT_FETCH_OP), COUNT_FETCH(add, obj, arg, order))
#undef atomic_fetch_sub_explicit
#define atomic_fetch_sub_explicit(obj, arg, order) (lockstep_count(LOCKSTEP_COUNT_FETCH_OP), COUNT_FETCH(sub, obj, arg, order))
#undef atomic_fetch_or_explicit
#define atomic_fetch_or_explicit(obj, arg, order) (lockstep_count(LOCKSTEP_COUNT_FETCH_OP), COUNT_FETCH(or, obj, arg, order))
#undef atomic_fetch_and_explicit
#define atomic_fetch_and_explicit(obj, arg, order) (lockstep_count(LOCKSTEP_COUNT_FETCH_OP), COUNT_FETCH(and, obj, arg, order))
#undef atomic_fetch_xor_explicit
#define atomic_fetch_xor_explicit(obj, arg, order) (lockstep_count(LOCKSTEP_COUNT_FETCH_OP), COUNT_FETCH(xor, obj, arg, order))

/* The implicit (seq_cst) forms: clang's do not go through the explicit ones. */
#include "../support/seq_cst_forms.h"

#define pthread_mutex_lock(m) lockstep_count_mutex_lock(m)
#define pthread_mutex_unlock(m) lockstep_count_mutex_unlock(m)
#define pthread_cond_wait(c, m) lockstep_count_cond_wait(c, m)
#define pthread_cond_signal(c) lockstep_count_cond_signal(c)
#define pthread_cond_broadcast(c) lockstep_count_cond_broadcast(c)

#endif /* LOCKSTEP_BENCH_COUNT_HOOK_H */
