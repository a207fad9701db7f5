/*
 * hook.h: force-included (-include) into the explorer's second build of a
 * step's sources (and into selftest.c and a litmus interpreter). The step
 * sources contain nothing for the explorer; this header turns each of
 * their atomic operations and mutex/condition calls into a call that
 * carries the operation's context as a value:
 *
 *     a site, static, one per call in the source: file, line, the object
 *     and the order as written (#obj, #order), what the call is;
 *     the operation itself: the object, its size, the orders as values,
 *     the operands (explore_atomic_op).
 *
 * explore_atomic (point.c) waits for the thread's turn, runs the operation
 * under the C11 model and writes its trace line. Loads and stores of
 * plain memory are not scheduling points (the explorer explores the
 * interleavings of the synchronizing operations, as CHESS does); they reach
 * the data-race check through the compiler's ThreadSanitizer
 * instrumentation instead (tsan.c).
 *
 * Every atomic site is also registered, at link time, in the section
 * explore_sites: a pointer to it, placed there by the compiler, which the
 * linker gathers between __start_explore_sites and __stop_explore_sites.
 * So weaken.c knows every atomic operation the binary contains before it
 * runs anything, and refuses a --weaken that names none.
 *
 * The macros are GNU statement expressions, marked __extension__ so that
 * -Wpedantic accepts them; __typeof__((void)0, *p) is the type of *p
 * without _Atomic (the trick gcc's own <stdatomic.h> uses).
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

/* The step's thread-locals (the sequencer's run queue): the scenario's
 * threads are coroutines on one OS thread (thread.c), so a real
 * _Thread_local would be one copy shared by all of them. Each becomes a
 * plain static in the section explore_tls instead, whose bytes thread.c
 * saves and restores as the turn passes: each thread sees its own copy,
 * starting as the program did. (A keyword defined as a macro: only in
 * this second build of the step, where gcc and clang take it.) */
#ifdef __APPLE__
#define _Thread_local __attribute__((section("__DATA,explore_tls")))
#else
#define _Thread_local __attribute__((section("explore_tls")))
#endif

#ifdef __APPLE__
#define EXPLORE_SITES_SECTION "__DATA,explore_sites"
#else
#define EXPLORE_SITES_SECTION "explore_sites"
#endif

/* The call's site, named explore_site_; registered if it is atomic. */
#define EXPLORE_SITE(call, name, obj, mo)                                                                       \
    static const explore_site explore_site_ = {call, name, __FILE__, __LINE__, obj, mo, __func__}
#define EXPLORE_ATOMIC_SITE(call, name, obj, mo)                                                                \
    EXPLORE_SITE(call, name, obj, mo);                                                                       \
    __attribute__((used, section(EXPLORE_SITES_SECTION))) static const explore_site *const explore_entry_ =     \
        &explore_site_

/* Initialization happens before the object is shared: not a scheduling
 * point, but the start of the object's history (a new object may sit where
 * an old one was), and a plain write (7.17.2.2). */
#undef atomic_init
#define atomic_init(obj, value)                                                                                 \
    __extension__({                                                                                             \
        EXPLORE_SITE(EXPLORE_STORE, "init", #obj, NULL);                                                        \
        __auto_type explore_o_ = (obj);                                                                         \
        EXPLORE_VALUE_TYPE(explore_o_) explore_d_ = (value);                                                    \
        explore_atomic_init(explore_o_, sizeof *explore_o_, (uintptr_t)explore_d_, &explore_site_);             \
        (void)0;                                                                                                \
    })

/* The operation on o; the other fields of explore_atomic_op, designated. */
#define EXPLORE_ATOMIC(o, ...)                                                                                  \
    explore_atomic(&(explore_atomic_op){.site = &explore_site_, .obj = (volatile void *)(o), .size = sizeof *(o), \
                                        __VA_ARGS__})

#undef atomic_load_explicit
#define atomic_load_explicit(obj, mo)                                                                        \
    __extension__({                                                                                             \
        EXPLORE_ATOMIC_SITE(EXPLORE_LOAD, "load", #obj, #mo);                                                \
        __auto_type explore_o_ = (obj);                                                                         \
        (EXPLORE_VALUE_TYPE(explore_o_))EXPLORE_ATOMIC(explore_o_, .order = (mo));                \
    })

#undef atomic_store_explicit
#define atomic_store_explicit(obj, desired, mo)                                                                \
    __extension__({                                                                                             \
        EXPLORE_ATOMIC_SITE(EXPLORE_STORE, "store", #obj, #mo);                                              \
        __auto_type explore_o_ = (obj);                                                                         \
        EXPLORE_VALUE_TYPE(explore_o_) explore_d_ = (desired);                                                  \
        EXPLORE_ATOMIC(explore_o_, .order = (mo), .value = (uintptr_t)explore_d_);                                       \
        (void)0;                                                                                                \
    })

#define EXPLORE_RMW(kind, name, obj, arg, mo)                                                                 \
    __extension__({                                                                                             \
        EXPLORE_ATOMIC_SITE(kind == EXPLORE_RMW_XCHG ? EXPLORE_EXCHANGE : EXPLORE_FETCH, name, #obj, #mo);    \
        __auto_type explore_o_ = (obj);                                                                         \
        EXPLORE_VALUE_TYPE(explore_o_) explore_a_ = (arg);                                                      \
        (EXPLORE_VALUE_TYPE(explore_o_))EXPLORE_ATOMIC(explore_o_, .order = (mo), .rmw = kind, .value = (uintptr_t)explore_a_);     \
    })
#undef atomic_exchange_explicit
#define atomic_exchange_explicit(obj, value, order) EXPLORE_RMW(EXPLORE_RMW_XCHG, "exchange", obj, value, order)
#undef atomic_fetch_add_explicit
#define atomic_fetch_add_explicit(obj, arg, order) EXPLORE_RMW(EXPLORE_RMW_ADD, "fetch_add", obj, arg, order)
#undef atomic_fetch_sub_explicit
#define atomic_fetch_sub_explicit(obj, arg, order) EXPLORE_RMW(EXPLORE_RMW_SUB, "fetch_sub", obj, arg, order)
#undef atomic_fetch_or_explicit
#define atomic_fetch_or_explicit(obj, arg, order) EXPLORE_RMW(EXPLORE_RMW_OR, "fetch_or", obj, arg, order)
#undef atomic_fetch_and_explicit
#define atomic_fetch_and_explicit(obj, arg, order) EXPLORE_RMW(EXPLORE_RMW_AND, "fetch_and", obj, arg, order)
#undef atomic_fetch_xor_explicit
#define atomic_fetch_xor_explicit(obj, arg, order) EXPLORE_RMW(EXPLORE_RMW_XOR, "fetch_xor", obj, arg, order)

/* A weak compare-exchange may fail spuriously (location.c). The site keeps
 * the success order as written; the failure order travels as a value. */
#define EXPLORE_CAS(obj, wanted, desired, success_mo, failure_mo, is_weak)                                            \
    __extension__({                                                                                             \
        EXPLORE_ATOMIC_SITE(EXPLORE_CAS, "compare_exchange", #obj, #success_mo);                                   \
        __auto_type explore_o_ = (obj);                                                                         \
        EXPLORE_VALUE_TYPE(explore_o_) *explore_e_ = (wanted);                                                  \
        EXPLORE_VALUE_TYPE(explore_o_) explore_d_ = (desired);                                                  \
        (_Bool)EXPLORE_ATOMIC(explore_o_, .order = (success_mo), .failure = (failure_mo), .value = (uintptr_t)explore_d_, \
                              .expected = explore_e_, .weak = is_weak); \
    })
#undef atomic_compare_exchange_strong_explicit
#define atomic_compare_exchange_strong_explicit(obj, expected, value, success, failure)                         \
    EXPLORE_CAS(obj, expected, value, success, failure, 0)
#undef atomic_compare_exchange_weak_explicit
#define atomic_compare_exchange_weak_explicit(obj, expected, value, success, failure)                           \
    EXPLORE_CAS(obj, expected, value, success, failure, 1)

/* Fences: an entry point of their own (fence.c, C11 7.17.4). */
#undef atomic_thread_fence
#define atomic_thread_fence(mo)                                                                              \
    __extension__({                                                                                             \
        EXPLORE_ATOMIC_SITE(EXPLORE_FENCE, "fence", "", #mo);                                                \
        explore_fence(&explore_site_, (mo));                                                                 \
    })

/* A signal fence orders a thread against a signal handler on that same
 * thread (7.17.4p5); the explorer runs no signal handlers, so it is a
 * compiler barrier only. */
#undef atomic_signal_fence
#define atomic_signal_fence(mo) __extension__({ (void)(mo); __asm__ __volatile__("" ::: "memory"); })

/* The implicit (seq_cst) forms, for completeness: the steps use the explicit ones. */
#include "../support/seq_cst_forms.h"

/* Mutexes and condition variables are modelled cooperatively (mutex.c): a
 * thread whose lock would block is simply not runnable until the unlock. */
#define EXPLORE_CALL(call, name, obj, f, ...)                                                                   \
    __extension__({                                                                                             \
        EXPLORE_SITE(call, name, #obj, NULL);                                                                   \
        f(__VA_ARGS__, &explore_site_);                                                                         \
    })
#define pthread_mutex_lock(m) EXPLORE_CALL(EXPLORE_MUTEX, "lock", m, explore_mutex_lock, (m))
#define pthread_mutex_unlock(m) EXPLORE_CALL(EXPLORE_MUTEX, "unlock", m, explore_mutex_unlock, (m))
#define pthread_cond_wait(c, m) EXPLORE_CALL(EXPLORE_COND, "wait", c, explore_cond_wait, (c), (m))
#define pthread_cond_signal(c) EXPLORE_CALL(EXPLORE_COND, "signal", c, explore_cond_signal, (c))
#define pthread_cond_broadcast(c) EXPLORE_CALL(EXPLORE_COND, "broadcast", c, explore_cond_broadcast, (c))
/* A thread the code under test creates runs as a thread of the schedule (thread.c). */
#define pthread_create(t, attr, fn, arg)                                                                       \
    EXPLORE_CALL(EXPLORE_THREAD, "pthread_create", t, explore_thread_create, (t), (attr), (fn), (arg))
#define pthread_join(t, result) EXPLORE_CALL(EXPLORE_THREAD, "pthread_join", t, explore_thread_join, (t), (result))

/* A coroutine resumed from the step's code runs a trampoline inside the
 * caller's: the explorer counts how deep they nest (point.c), so that a
 * scenario can check that the C stack does not grow with a chain of
 * completions (erratum 5: resume the next one inline instead of returning it). */
#define lockstep_coro_resume(h) explore_coro_resume(h)

/* Allocations carry their site into the trace and the leak report. */
#define lockstep_alloc(size) EXPLORE_CALL(EXPLORE_ALLOC, "allocate", size, explore_alloc_at, (size))
#define lockstep_free(p) EXPLORE_CALL(EXPLORE_FREE, "free", p, explore_free_at, (p))

#endif /* LOCKSTEP_EXPLORE_HOOK_H */
