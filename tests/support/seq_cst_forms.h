/* The implicit (seq_cst) forms of <stdatomic.h>'s operations, as their
 * explicit forms with memory_order_seq_cst, for a header that hooks the
 * explicit forms: glibc's implicit forms go through the explicit ones, but
 * clang's <stdatomic.h> maps each straight to a builtin, which would skip
 * the hook without a word. The steps use only the explicit forms; both
 * hooks (tests/explore/hook.h, the explorer's; tests/bench/count_hook.h,
 * the counting benchmark's) include this so that a later use is hooked
 * too. Include it after the hooks of the explicit forms. */
#ifndef LOCKSTEP_SEQ_CST_FORMS_H
#define LOCKSTEP_SEQ_CST_FORMS_H

#undef atomic_load
#define atomic_load(obj) atomic_load_explicit(obj, memory_order_seq_cst)
#undef atomic_store
#define atomic_store(obj, value) atomic_store_explicit(obj, value, memory_order_seq_cst)
#undef atomic_exchange
#define atomic_exchange(obj, value) atomic_exchange_explicit(obj, value, memory_order_seq_cst)
#undef atomic_fetch_add
#define atomic_fetch_add(obj, arg) atomic_fetch_add_explicit(obj, arg, memory_order_seq_cst)
#undef atomic_fetch_sub
#define atomic_fetch_sub(obj, arg) atomic_fetch_sub_explicit(obj, arg, memory_order_seq_cst)

#endif /* LOCKSTEP_SEQ_CST_FORMS_H */
