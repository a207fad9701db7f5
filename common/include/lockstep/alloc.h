/**
 * @file alloc.h
 * @brief The allocator every library allocation goes through: it counts, and
 *        it can be told to fail.
 *
 * Counting: each thread has its own counters (plain loads and stores, no
 * atomic read-modify-write on the hot path); lockstep_alloc_totals() sums
 * them. Tests assert "no leaks" with lockstep_alloc_live(), the benchmark
 * reports allocations per operation.
 *
 * Fault injection: lockstep_alloc_fail_nth() makes one future allocation of
 * the calling thread fail, lockstep_alloc_fail_after() every allocation after
 * a count. This is how the tests prove that an allocation failure returns
 * ENOMEM and loses nothing.
 */
#ifndef LOCKSTEP_ALLOC_H
#define LOCKSTEP_ALLOC_H

#include <stddef.h>
#include <stdint.h>

/**
 * @brief Allocates @p size bytes, aligned for any type (like malloc).
 * @param size bytes wanted; 0 is treated as 1.
 * @return the block, or NULL when malloc fails or a failure was injected on
 *         this thread. A failed call counts as a failure, not an allocation.
 * @par Thread safety
 * Any thread.
 */
void *lockstep_alloc(size_t size);

/**
 * @brief Frees a block from lockstep_alloc(). NULL is ignored.
 * @param p the block; it may come from another thread.
 * @par Thread safety
 * Any thread.
 */
void lockstep_free(void *p);

/** Allocation counters: of one thread, or summed over all threads. */
typedef struct lockstep_alloc_counts {
    uint64_t allocs;   /**< successful lockstep_alloc() calls */
    uint64_t frees;    /**< lockstep_free() calls with a non-NULL block */
    uint64_t failures; /**< lockstep_alloc() calls that returned NULL */
} lockstep_alloc_counts;

/**
 * @brief Counters summed over every thread that ever allocated, including
 *        threads that have exited.
 * @return the totals.
 * @par Thread safety
 * Any thread; exact only while no other thread is allocating or freeing
 * (read before starting or after joining the threads that do).
 */
lockstep_alloc_counts lockstep_alloc_totals(void);

/**
 * @brief The calling thread's own counters.
 * @return the counters of the calling thread (frees of blocks that other
 *         threads allocated count here too).
 */
lockstep_alloc_counts lockstep_alloc_thread(void);

/**
 * @brief Blocks allocated and not yet freed, over all threads.
 * @return totals.allocs - totals.frees.
 * @par Thread safety
 * As lockstep_alloc_totals().
 */
int64_t lockstep_alloc_live(void);

/**
 * @brief Makes the @p n th allocation from now on the calling thread fail,
 *        once (1 = the next one). 0 cancels.
 * @param n which allocation fails.
 * @par Thread safety
 * Affects the calling thread only.
 */
void lockstep_alloc_fail_nth(uint64_t n);

/**
 * @brief Lets the next @p n allocations of the calling thread succeed and
 *        makes every later one fail, until lockstep_alloc_fail_none().
 * @param n allocations that still succeed (0: the next one already fails).
 * @par Thread safety
 * Affects the calling thread only.
 */
void lockstep_alloc_fail_after(uint64_t n);

/**
 * @brief Cancels any failure injected on the calling thread.
 */
void lockstep_alloc_fail_none(void);

#endif /* LOCKSTEP_ALLOC_H */
