/*
 * What a piece of a test allocated and freed: the counts since `before`,
 * in the type a failure message prints them with (%llu).
 *
 *     lockstep_alloc_counts before = lockstep_alloc_totals();
 *     ...
 *     alloc_delta n = allocs_since(before);
 *     ck_assert_msg(n.allocs == 1 && n.frees == 1, "... got %llu and %llu", n.allocs, n.frees);
 */
#ifndef LOCKSTEP_ALLOC_DELTA_H
#define LOCKSTEP_ALLOC_DELTA_H

#include "lockstep/alloc.h"

typedef struct alloc_delta {
    unsigned long long allocs;   /* successful allocations */
    unsigned long long frees;    /* frees */
    unsigned long long failures; /* allocations that failed */
} alloc_delta;

static inline alloc_delta allocs_since(lockstep_alloc_counts before)
{
    lockstep_alloc_counts now = lockstep_alloc_totals();
    return (alloc_delta){now.allocs - before.allocs, now.frees - before.frees, now.failures - before.failures};
}

#endif
