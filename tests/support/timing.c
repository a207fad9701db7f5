/* race_cpus(): how many CPUs the process may run on (timing.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "timing.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int cpus_of_process(void)
{
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int race_cpus(void)
{
    static atomic_int cached; /* 0: not asked yet; every thread computes the same value */
    int n = atomic_load_explicit(&cached, memory_order_relaxed);
    if (n == 0) {
        n = cpus_of_process();
        atomic_store_explicit(&cached, n, memory_order_relaxed);
    }
    return n;
}

double race_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

race_budget race_budget_start(double seconds)
{
    const char *env = getenv("LOCKSTEP_RACE_SECONDS");
    if (env && *env) {
        char *end;
        double s = strtod(env, &end);
        if (*end == '\0' && s >= 0)
            seconds = s;
    }
    return (race_budget){seconds > 0 ? race_seconds() + seconds : 0};
}
