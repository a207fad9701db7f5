/*
 * The set of final states a litmus test reached, and herd7's output shape
 * (outcome.c).
 */
#ifndef LOCKSTEP_LITMUS_OUTCOME_H
#define LOCKSTEP_LITMUS_OUTCOME_H

#include "core/json.h"
#include "litmus.h"

/* The states found so far, in the order first reached. The arrays grow as
 * states are added (a test with every location shown, as herd's fig6, has
 * thousands); a zeroed set is empty. */
typedef struct outcome_set {
    int nstates;
    int capacity;                       /* of each array below */
    int (*values)[LITMUS_MAX_OBSERVED]; /* in the order of test->shown */
    long *executions; /* distinct executions that ended in each state (herd's count) */
    long *schedules;  /* schedules of the search that ended in each state (its cost) */
    bool race;                          /* some schedule had a data race (herd: undefined behaviour) */
    char race_report[512];              /* the first one, as the explorer reported it */
} outcome_set;

/* Adds a final state (counted by the caller); returns its index, and
 * *added when it is new. -1: no memory for a new state (the set unchanged). */
int outcome_add(outcome_set *set, int nvalues, const int *values, bool *added);

/* Frees the arrays; the set is empty again. */
void outcome_set_free(outcome_set *set);

/* "1:r0=0; 1:r1=1; [x]=1;" as herd prints a state. */
void outcome_format(const litmus_test *t, const int *values, char *buf, size_t size);

/* Sorts the states as herd lists them; map[i] (map: set->nstates entries)
 * is the old index of the i-th. false: no memory to sort (the set unchanged). */
bool outcome_sort(const litmus_test *t, outcome_set *set, int *map);

/* The condition's proposition (without its quantifier) on a state. */
bool outcome_holds(const litmus_test *t, const cond *c, const int *values);

/* herd7's block: Test, States, the states, Ok/No/Undef, Witnesses,
 * Positive/Negative, Flag, Condition, Observation, Time. */
void outcome_print(const litmus_test *t, const outcome_set *set, double seconds);
/* The same as members of the open JSON object j (--json); graphs[i]: the
 * i-th state's graph file, or graphs NULL; executions[i]: the execution
 * that first reached it, as JSON ({"trace", "graph"}), or NULL. */
/* The condition's equalities ("atoms": herd's 1:r0=1, [x]=2, left to
 * right) and the file's stated states, each judged: whether the condition
 * holds there and which of its equalities do ("expected"), as members of
 * the open JSON object j. Python asks this instead of evaluating the
 * condition again (docs_litmus.py). */
void outcome_json_stated(json *j, const litmus_test *t);
void outcome_json(json *j, const litmus_test *t, const outcome_set *set, const char *const *graphs,
                  const char *const *executions, double seconds);

/* --check: the states equal the file's "expect" lines, with its "expect-c11"
 * lines under C11 (and a race is flagged exactly when an "expect Flag
 * *undef*" line says so). Prints the verdict. */
bool outcome_check(const litmus_test *t, const outcome_set *set, bool c11);

#endif /* LOCKSTEP_LITMUS_OUTCOME_H */
