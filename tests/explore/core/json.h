/* A JSON writer, just enough for the explorer's --json (json.c): values
 * written in order, the commas and the quoting done here. */
#ifndef LOCKSTEP_EXPLORE_JSON_H
#define LOCKSTEP_EXPLORE_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_DEPTH 16

typedef struct json {
    FILE *f;
    int depth;
    bool more[JSON_DEPTH]; /* the open object or array has a member already: a comma before the next */
    bool after_key;        /* a key was just written: its value comes without a comma */
} json;

void json_begin(json *j, FILE *f);
void json_object(json *j);
void json_end_object(json *j);
void json_array(json *j);
void json_end_array(json *j);
void json_key(json *j, const char *key); /* in an object, before each value */
void json_string(json *j, const char *s); /* NULL: null */
void json_int(json *j, long v);
void json_number(json *j, double v);
void json_bool(json *j, bool v);
void json_null(json *j);
/* A value already written as JSON (text: one whole JSON value, as another
 * json writer wrote it), copied in as it is. */
void json_raw(json *j, const char *text);

#endif /* LOCKSTEP_EXPLORE_JSON_H */
