/*
 * The set of final states a litmus test reached, printed in herd7's shape.
 *
 * herd7 prints, for a test (herd7 7.57, checked against its output):
 *
 *     Test MP Allowed                     Allowed: exists; Forbidden: ~exists; Required: forall
 *     States 3
 *     1:r0=0; 1:r1=0;                     registers by thread then name, then [locations]
 *     1:r0=0; 1:r1=1;                     sorted by their values, as numbers
 *     1:r0=1; 1:r1=1;
 *     No                                  the quantified condition holds (Ok) or not (No);
 *                                         Undef when some execution has a data race
 *     Witnesses
 *     Positive: 0 Negative: 3             executions where the quantified condition holds / not
 *     Flag *undef*                        only with a data race
 *     Condition exists (1:r0=1 /\ 1:r1=0)
 *     Observation MP Never 0 3            the proposition held in none, some or all of them
 *     Time MP 0.00
 *     Hash=...
 *
 * The counts: herd counts executions (each consistent choice of what every
 * load reads and of the modification orders), and so does explore_litmus:
 * several of its schedules may make the same execution, and it counts that
 * execution once (the explorer's execution.c). Positive, Negative and the
 * Observation's two numbers are executions, as herd's; a last line,
 * `Schedules N`, says what the search ran to find them (not herd's). Time
 * is explore_litmus's own; the Hash line (herd's digest of the test's code)
 * is left out.
 */
#include "outcome.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Makes room for capacity states; false (the set unchanged) if there is
 * no memory. Each array is reallocated apart: one that moved is kept, so a
 * failure loses nothing. */
static bool reserve(outcome_set *set, int capacity)
{
    if (capacity <= set->capacity)
        return true;
    int(*values)[LITMUS_MAX_OBSERVED] = realloc(set->values, (size_t)capacity * sizeof *values);
    if (values)
        set->values = values;
    long *executions = realloc(set->executions, (size_t)capacity * sizeof *executions);
    if (executions)
        set->executions = executions;
    long *schedules = realloc(set->schedules, (size_t)capacity * sizeof *schedules);
    if (schedules)
        set->schedules = schedules;
    if (!values || !executions || !schedules)
        return false;
    set->capacity = capacity;
    return true;
}

int outcome_add(outcome_set *set, int nvalues, const int *values, bool *added)
{
    *added = false;
    for (int i = 0; i < set->nstates; ++i)
        if (memcmp(set->values[i], values, (size_t)nvalues * sizeof *values) == 0)
            return i;
    /* from 4: most tests here grow the set, so the growth is run by every label run */
    if (set->nstates == set->capacity && !reserve(set, set->capacity ? 2 * set->capacity : 4))
        return -1;
    int i = set->nstates++;
    memcpy(set->values[i], values, (size_t)nvalues * sizeof *values);
    set->schedules[i] = set->executions[i] = 0;
    *added = true;
    return i;
}

void outcome_set_free(outcome_set *set)
{
    free(set->values);
    free(set->executions);
    free(set->schedules);
    *set = (outcome_set){0};
}

/* A value as herd prints it: a number, or a location's name for its
 * address (1:r2=x0). */
static void format_value(const litmus_test *t, int v, char *buf, size_t size)
{
    int loc = litmus_address_of(v, t->nlocs);
    if (loc >= 0)
        snprintf(buf, size, "%s", t->locs[loc].name);
    else
        snprintf(buf, size, "%d", v);
}

void outcome_format(const litmus_test *t, const int *values, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < t->nshown && len < size; ++i) {
        observed o = t->shown[i];
        char value[LITMUS_MAX_NAME + 16];
        format_value(t, values[i], value, sizeof value);
        if (o.thread >= 0)
            len += (size_t)snprintf(buf + len, size - len, "%s%d:%s=%s;", i ? " " : "", o.thread,
                                    t->threads[o.thread].regs[o.index], value);
        else
            len += (size_t)snprintf(buf + len, size - len, "%s[%s]=%s;", i ? " " : "", t->locs[o.index].name,
                                    value);
    }
}

/* ---- sorting ------------------------------------------------------------------------ */

typedef struct sort_entry {
    const litmus_test *t;
    const int *values;
    int index;
} sort_entry;

/* Numbers by value, then addresses by their location's name. */
static int compare_values(const litmus_test *t, int a, int b)
{
    int x = litmus_address_of(a, t->nlocs), y = litmus_address_of(b, t->nlocs);
    if (x >= 0 && y >= 0)
        return strcmp(t->locs[x].name, t->locs[y].name);
    if ((x >= 0) != (y >= 0))
        return x >= 0 ? 1 : -1;
    return a < b ? -1 : a > b;
}

static int compare_states(const void *a, const void *b)
{
    const sort_entry *x = a, *y = b;
    for (int i = 0; i < x->t->nshown; ++i) {
        int c = compare_values(x->t, x->values[i], y->values[i]);
        if (c)
            return c;
    }
    return 0;
}

bool outcome_sort(const litmus_test *t, outcome_set *set, int *map)
{
    sort_entry *entries = malloc((size_t)set->nstates * sizeof *entries + 1);
    outcome_set sorted = {0};
    if (!entries || !reserve(&sorted, set->nstates)) {
        free(entries);
        outcome_set_free(&sorted);
        return false;
    }
    for (int i = 0; i < set->nstates; ++i)
        entries[i] = (sort_entry){t, set->values[i], i};
    qsort(entries, (size_t)set->nstates, sizeof entries[0], compare_states);
    for (int i = 0; i < set->nstates; ++i) {
        memcpy(sorted.values[i], set->values[entries[i].index], sizeof sorted.values[i]);
        sorted.schedules[i] = set->schedules[entries[i].index];
        sorted.executions[i] = set->executions[entries[i].index];
        map[i] = entries[i].index;
    }
    free(entries);
    sorted.nstates = set->nstates;
    sorted.race = set->race;
    memcpy(sorted.race_report, set->race_report, sizeof sorted.race_report);
    outcome_set_free(set);
    *set = sorted;
    return true;
}

/* ---- the condition ------------------------------------------------------------------- */

static int value_of(const litmus_test *t, observed what, const int *values)
{
    for (int i = 0; i < t->nshown; ++i)
        if (t->shown[i].thread == what.thread && t->shown[i].index == what.index)
            return values[i];
    return 0; /* the parser shows everything the condition names */
}

bool outcome_holds(const litmus_test *t, const cond *c, const int *values)
{
    switch (c->kind) {
    case COND_TRUE: return true;
    case COND_FALSE: return false;
    case COND_EQ: return value_of(t, c->what, values) == c->value;
    case COND_NOT: return !outcome_holds(t, c->a, values);
    case COND_AND: return outcome_holds(t, c->a, values) && outcome_holds(t, c->b, values);
    case COND_OR: return outcome_holds(t, c->a, values) || outcome_holds(t, c->b, values);
    }
    return false;
}

/* As herd prints a condition back: [x] for x, "not (...)" for ~ and !=,
 * parentheses only around a disjunction inside a conjunction. */
static void print_cond(FILE *f, const litmus_test *t, const cond *c, bool in_and)
{
    switch (c->kind) {
    case COND_TRUE: fprintf(f, "true"); break;
    case COND_FALSE: fprintf(f, "false"); break;
    case COND_EQ: {
        char value[LITMUS_MAX_NAME + 16];
        format_value(t, c->value, value, sizeof value);
        if (c->what.thread >= 0)
            fprintf(f, "%d:%s=%s", c->what.thread, t->threads[c->what.thread].regs[c->what.index], value);
        else
            fprintf(f, "[%s]=%s", t->locs[c->what.index].name, value);
        break;
    }
    case COND_NOT:
        fprintf(f, "not (");
        print_cond(f, t, c->a, false);
        fprintf(f, ")");
        break;
    case COND_AND:
        print_cond(f, t, c->a, true);
        fprintf(f, " /\\ ");
        print_cond(f, t, c->b, true);
        break;
    case COND_OR:
        if (in_and)
            fprintf(f, "(");
        print_cond(f, t, c->a, false);
        fprintf(f, " \\/ ");
        print_cond(f, t, c->b, false);
        if (in_and)
            fprintf(f, ")");
        break;
    }
}

/* ---- herd's block ----------------------------------------------------------------------- */

/* The executions whose final state makes the condition's proposition
 * hold, and the others; returns the states where it holds. herd's
 * Positive and Negative are these two, swapped for ~exists (its witnesses
 * are the states where the proposition fails). */
static int witnesses(const litmus_test *t, const outcome_set *set, long *holds, long *fails)
{
    int holding = 0;
    *holds = *fails = 0;
    for (int i = 0; i < set->nstates; ++i) {
        bool h = outcome_holds(t, t->condition, set->values[i]);
        *(h ? holds : fails) += set->executions[i];
        holding += h;
    }
    return holding;
}

void outcome_print(const litmus_test *t, const outcome_set *set, double seconds)
{
    static const char *const kinds[] = {"Allowed", "Forbidden", "Required"};
    static const char *const quantifiers[] = {"exists", "~exists", "forall"};
    long schedules = 0, holds, fails;
    char line[1024];
    printf("Test %s %s\n", t->name, kinds[t->quantifier]);
    printf("States %d\n", set->nstates);
    for (int i = 0; i < set->nstates; ++i) {
        outcome_format(t, set->values[i], line, sizeof line);
        printf("%s\n", line);
        schedules += set->schedules[i];
    }
    int states_holding = witnesses(t, set, &holds, &fails);
    bool ok = t->quantifier == EXISTS      ? states_holding > 0
              : t->quantifier == NOT_EXISTS ? states_holding == 0
                                            : states_holding == set->nstates;
    printf("%s\n", set->race ? "Undef" : ok ? "Ok" : "No");
    printf("Witnesses\n");
    if (t->quantifier == NOT_EXISTS)
        printf("Positive: %ld Negative: %ld\n", fails, holds);
    else
        printf("Positive: %ld Negative: %ld\n", holds, fails);
    if (set->race)
        printf("Flag *undef*\n");
    printf("Condition %s (", quantifiers[t->quantifier]);
    print_cond(stdout, t, t->condition, false);
    printf(")\n");
    printf("Observation %s %s %ld %ld\n", t->name,
           states_holding == 0 ? "Never" : fails == 0 ? "Always" : "Sometimes", holds, fails);
    printf("Time %s %.2f\n", t->name, seconds);
    printf("Schedules %ld\n", schedules);
    printf("\n");
}

/* The same block as JSON (--json): each state with its values by name,
 * its counts, whether the condition's proposition holds there, and its
 * graph's file (graphs[i], NULL: none); then herd's verdict, Positive and
 * Negative, the race flag and the condition as herd prints it. */
/* ---- the stated states, judged (--json) -------------------------------------------- */

/* A state as herd writes it ("1:r0=1; [x]=2;"), into values in t->shown's
 * order; false if it is not one of t's (a name it does not show, a value
 * that is neither a number nor a location, a shown name left out). */
static bool parse_state(const litmus_test *t, const char *text, int *values)
{
    bool set[LITMUS_MAX_OBSERVED] = {false};
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *part = strtok_r(buf, ";", &save); part; part = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(part, '=');
        if (!eq) {
            if (strspn(part, " ") == strlen(part))
                continue;
            return false;
        }
        *eq = '\0';
        char *name = part + strspn(part, " "), *value = eq + 1 + strspn(eq + 1, " ");
        int k = 0;
        for (; k < t->nshown; ++k) {
            char shown[LITMUS_MAX_NAME + 16];
            observed o = t->shown[k];
            if (o.thread >= 0)
                snprintf(shown, sizeof shown, "%d:%s", o.thread, t->threads[o.thread].regs[o.index]);
            else
                snprintf(shown, sizeof shown, "[%s]", t->locs[o.index].name);
            if (strcmp(shown, name) == 0)
                break;
        }
        if (k == t->nshown)
            return false;
        char *end;
        long v = strtol(value, &end, 10);
        int loc = -1;
        for (int l = 0; l < t->nlocs && loc < 0; ++l)
            loc = strcmp(t->locs[l].name, value) == 0 ? l : -1;
        if (end != value && !*end)
            values[k] = (int)v;
        else if (loc >= 0)
            values[k] = litmus_address(loc);
        else
            return false;
        set[k] = true;
    }
    for (int k = 0; k < t->nshown; ++k)
        if (!set[k])
            return false;
    return true;
}

/* The condition's equalities, left to right, as herd prints each. */
static int atoms_of(const litmus_test *t, const cond *c, const cond **out, int n, int room)
{
    if (!c || n >= room)
        return n;
    if (c->kind == COND_EQ) {
        out[n++] = c;
        return n;
    }
    n = atoms_of(t, c->a, out, n, room);
    return atoms_of(t, c->b, out, n, room);
}

#define MAX_ATOMS 32

static void atoms_held_json(json *j, const litmus_test *t, const int *values)
{
    const cond *atoms[MAX_ATOMS];
    int n = atoms_of(t, t->condition, atoms, 0, MAX_ATOMS);
    json_key(j, "atoms_held");
    json_array(j);
    for (int k = 0; k < n; ++k)
        json_bool(j, outcome_holds(t, atoms[k], values));
    json_end_array(j);
}

void outcome_json_stated(json *j, const litmus_test *t)
{
    const cond *atoms[MAX_ATOMS];
    int n = atoms_of(t, t->condition, atoms, 0, MAX_ATOMS);
    json_key(j, "atoms");
    json_array(j);
    for (int k = 0; k < n; ++k) {
        char text[256];
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (f) {
            print_cond(f, t, atoms[k], false);
            fclose(f);
        }
        snprintf(text, sizeof text, "%s", buf ? buf : "");
        free(buf);
        json_string(j, text);
    }
    json_end_array(j);
    json_key(j, "expected");
    json_array(j);
    for (int i = 0; i < t->nexpected; ++i) {
        int values[LITMUS_MAX_OBSERVED];
        json_object(j);
        json_key(j, "state");
        json_string(j, t->expected[i]);
        json_key(j, "c11");
        json_bool(j, t->expected_c11[i]);
        bool parsed = strcmp(t->expected[i], "Flag *undef*") != 0 && parse_state(t, t->expected[i], values);
        json_key(j, "holds"); /* null: no state (the race flag) or not one of this test's */
        if (parsed)
            json_bool(j, outcome_holds(t, t->condition, values));
        else
            json_null(j);
        if (parsed)
            atoms_held_json(j, t, values);
        json_end_object(j);
    }
    json_end_array(j);
}

void outcome_json(json *j, const litmus_test *t, const outcome_set *set, const char *const *graphs,
                  const char *const *executions, double seconds)
{
    static const char *const kinds[] = {"Allowed", "Forbidden", "Required"};
    static const char *const quantifiers[] = {"exists", "~exists", "forall"};
    char line[1024];
    long schedules = 0, holds, fails;
    json_key(j, "test");
    json_string(j, t->name);
    json_key(j, "kind");
    json_string(j, kinds[t->quantifier]);
    json_key(j, "states");
    json_array(j);
    for (int i = 0; i < set->nstates; ++i) {
        json_object(j);
        outcome_format(t, set->values[i], line, sizeof line);
        json_key(j, "state");
        json_string(j, line);
        json_key(j, "values");
        json_object(j);
        for (int k = 0; k < t->nshown; ++k) {
            observed o = t->shown[k];
            char name[LITMUS_MAX_NAME + 16], value[LITMUS_MAX_NAME + 16];
            if (o.thread >= 0)
                snprintf(name, sizeof name, "%d:%s", o.thread, t->threads[o.thread].regs[o.index]);
            else
                snprintf(name, sizeof name, "[%s]", t->locs[o.index].name);
            json_key(j, name);
            format_value(t, set->values[i][k], value, sizeof value);
            json_string(j, value); /* a number, or a location's name: as herd prints it */
        }
        json_end_object(j);
        json_key(j, "holds");
        json_bool(j, outcome_holds(t, t->condition, set->values[i]));
        atoms_held_json(j, t, set->values[i]);
        json_key(j, "executions");
        json_int(j, set->executions[i]);
        json_key(j, "schedules");
        json_int(j, set->schedules[i]);
        json_key(j, "graph");
        json_string(j, graphs ? graphs[i] : NULL);
        json_key(j, "execution"); /* the first that reached it: its trace and graph, as data */
        if (executions && executions[i])
            json_raw(j, executions[i]);
        else
            json_null(j);
        json_end_object(j);
        schedules += set->schedules[i];
    }
    json_end_array(j);
    int states_holding = witnesses(t, set, &holds, &fails);
    bool ok = t->quantifier == EXISTS      ? states_holding > 0
              : t->quantifier == NOT_EXISTS ? states_holding == 0
                                            : states_holding == set->nstates;
    json_key(j, "verdict");
    json_string(j, set->race ? "Undef" : ok ? "Ok" : "No");
    json_key(j, "positive");
    json_int(j, t->quantifier == NOT_EXISTS ? fails : holds);
    json_key(j, "negative");
    json_int(j, t->quantifier == NOT_EXISTS ? holds : fails);
    json_key(j, "race");
    json_bool(j, set->race);
    json_key(j, "race_report");
    json_string(j, set->race ? set->race_report : NULL);
    char *cond = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&cond, &size);
    if (f) {
        fprintf(f, "%s (", quantifiers[t->quantifier]);
        print_cond(f, t, t->condition, false);
        fprintf(f, ")");
        fclose(f);
    }
    json_key(j, "condition");
    json_string(j, cond);
    free(cond);
    json_key(j, "observation");
    json_string(j, states_holding == 0 ? "Never" : fails == 0 ? "Always" : "Sometimes");
    json_key(j, "schedules");
    json_int(j, schedules);
    json_key(j, "seconds");
    json_number(j, seconds);
}

/* ---- --check ------------------------------------------------------------------------------ */

/* Whether the i-th expect line belongs to the model's set. */
static bool in_model(const litmus_test *t, int i, bool c11) { return c11 || !t->expected_c11[i]; }

static bool stated(const litmus_test *t, const char *line, bool c11)
{
    for (int i = 0; i < t->nexpected; ++i)
        if (in_model(t, i, c11) && strcmp(t->expected[i], line) == 0)
            return true;
    return false;
}

bool outcome_check(const litmus_test *t, const outcome_set *set, bool c11)
{
    char line[1024];
    int missing = 0, extra = 0, nstated = 0;
    for (int i = 0; i < set->nstates; ++i) {
        outcome_format(t, set->values[i], line, sizeof line);
        if (!stated(t, line, c11)) {
            printf("explore_litmus: %s: found %s, which the file does not state\n", t->name, line);
            ++extra;
        }
    }
    bool flag_stated = false;
    for (int i = 0; i < t->nexpected; ++i) {
        if (!in_model(t, i, c11))
            continue;
        if (strcmp(t->expected[i], "Flag *undef*") == 0) {
            flag_stated = true;
            continue;
        }
        ++nstated;
        bool found = false;
        for (int k = 0; k < set->nstates && !found; ++k) {
            outcome_format(t, set->values[k], line, sizeof line);
            found = strcmp(line, t->expected[i]) == 0;
        }
        if (!found) {
            printf("explore_litmus: %s: the file states %s, never found\n", t->name, t->expected[i]);
            ++missing;
        }
    }
    if (nstated == 0) {
        printf("explore_litmus: %s: the file states no final state (lines \"expect STATE\" in a comment)\n",
               t->name);
        return false;
    }
    if (flag_stated != set->race)
        printf("explore_litmus: %s: the file says %s, the explorer found %s\n", t->name,
               flag_stated ? "a data race (Flag *undef*)" : "no data race", set->race ? "one" : "none");
    long holds, fails;
    witnesses(t, set, &holds, &fails);
    long positive = t->quantifier == NOT_EXISTS ? fails : holds, negative = t->quantifier == NOT_EXISTS ? holds : fails;
    bool counted = t->expected_counts[0] == -1 || c11 || /* herd7's counts are RC11's */
                   (t->expected_counts[0] == positive && t->expected_counts[1] == negative);
    if (!counted && t->expected_counts[0] == -2)
        printf("explore_litmus: %s: its expect-counts line is not \"expect-counts Positive: P Negative: N\"\n",
               t->name);
    else if (!counted)
        printf("explore_litmus: %s: the file states Positive: %ld Negative: %ld executions, the explorer met "
               "Positive: %ld Negative: %ld\n", t->name, t->expected_counts[0], t->expected_counts[1], positive,
               negative);
    if (missing || extra || flag_stated != set->race || !counted) {
        printf("explore_litmus: %s: FAILED: %d stated state%s missing, %d unstated found\n", t->name, missing,
               missing == 1 ? "" : "s", extra);
        return false;
    }
    printf("explore_litmus: %s: exactly the %d stated final states%s%s%s\n", t->name, nstated,
           c11 ? " of C11" : "", set->race ? ", and the data race" : "",
           t->expected_counts[0] >= 0 ? ", and the stated counts of executions" : "");
    return true;
}
