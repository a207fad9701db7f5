/* names.c's part of a schedule's world (run/world.h): its types, declared
 * here so that core/part.h can hold the part by value; only names.c reads it. */
#ifndef LOCKSTEP_EXPLORE_NAMES_STATE_H
#define LOCKSTEP_EXPLORE_NAMES_STATE_H

#include "model.h"

typedef struct named {
    const volatile void *addr;
    const char *name;
    bool coro;
} named;

/* What names what, its part of the world (run/world.h). */
typedef struct names_state {
    named names[32];
    int nnames;
    bool name_fields;
    /* The scenario's thread names, kept here (not asked of thread.c) so
     * that naming calls nothing above it. */
    const explore_scenario *scenario;
    /* The scenario's context and its fields (explore_name_context): set
     * once for the search, kept across names_reset like the scenario. */
    uintptr_t context;
    size_t context_size;
    const explore_field *fields;
    size_t nfields;
    /* Code addresses already looked up (name_code_line), for the whole
     * process: addr2line runs once per address, not once per report. */
    struct code_line {
        const void *pc;
        char file[200];
        int line; /* 0: addr2line did not know it */
    } code[64];
    int ncode;
} names_state;

#endif /* LOCKSTEP_EXPLORE_NAMES_STATE_H */
